/// <reference lib="dom" />
/**
 * Browser code of the join page: its calls to the player site's routes beside the page (`view`,
 * `claim`, `messages`, relative to the page's own path), answered in the API's envelope, and what
 * a failed call says to the player.
 */
import type * as z from 'zod/mini';
import type { ErrorCode } from '../../shared/errors';
import { requestJson } from '../../shared/browser/json-request';
import { pagePath } from '../../shared/browser/dom';
import type { PlayerViewSchema } from '../player-contracts';

/** What `view`, `claim` and `messages` answer: the invitation as this browser may see it. */
export type PlayerView = z.output<typeof PlayerViewSchema>;

/** A call's answer: the view, or the envelope's error (`NETWORK`, status 0: the service could not be reached). */
export type PlayerAnswer =
  | { readonly ok: true; readonly status: number; readonly data: PlayerView; readonly retryAfter: string | null }
  | {
      readonly ok: false;
      readonly status: number;
      readonly error?: { readonly code: ErrorCode | 'NETWORK'; readonly message: string };
      readonly retryAfter?: string | null;
    };

/** The page's own path: the site's routes are below it. */
export const base = pagePath();

export async function call(path: '/view' | '/claim' | '/messages', init: RequestInit): Promise<PlayerAnswer> {
  const answer = await requestJson(base + path, init);
  if (!answer.reached) {
    return { ok: false, status: 0, error: { code: 'NETWORK', message: 'The service cannot be reached. Check your connection and try again.' } };
  }
  const body = (answer.body ?? {}) as { data: PlayerView; error?: { code: ErrorCode; message: string } };
  if (answer.ok) return { ok: true, status: answer.status, data: body.data, retryAfter: answer.retryAfter };
  return { ok: false, status: answer.status, error: body.error, retryAfter: answer.retryAfter };
}

// Two player cookies reached the call: another website set one (DUPLICATE_CREDENTIAL_COOKIE); the service refuses to guess.
export const TWO_COOKIES =
  'Your browser sent this page a second access cookie that this site did not set: another website may be trying to interfere, so nothing was shown or sent. Your ticket is safe. Remove the other website\u2019s cookies in your browser settings and reload, or contact the organization that invited you.';

export const twoCookies = (result: PlayerAnswer): boolean => !result.ok && result.error?.code === 'DUPLICATE_CREDENTIAL_COOKIE';

/** What a failed call means to the player. */
export function errorText(result: Extract<PlayerAnswer, { ok: false }>): string {
  if (twoCookies(result)) return TWO_COOKIES;
  if (result.status === 429) return 'Too many attempts. Please wait ' + (result.retryAfter || 'a few') + ' seconds and try again.';
  if (result.status === 503) return 'The ticket service is busy right now. Please try again in a moment.';
  return result.error?.message || 'Something went wrong. Please try again.';
}
