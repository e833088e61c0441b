/// <reference lib="dom" />
/**
 * Browser code of the settings page: its one way to call the settings API beside the page
 * (`<page>/api/…`), typed by the routes' own contracts (settings-contracts.ts, sign-in-contracts.ts,
 * webhook-contracts.ts: what a route answers is `z.output` of its `data` schema, what it takes
 * `z.input` of its `body`; types only, nothing of zod reaches the page). JSON in and out, the
 * session cookie, the cross-site request header on every change, and a creation's Idempotency-Key
 * (submission-keys.ts) when its form gives one. A call that finds the session
 * gone (SESSION_REQUIRED) or two session cookies tells the page once, through `whenSessionLost`.
 * A call refused because the service was checking too many passwords at once (503 PASSWORD_CHECK_BUSY: refused before
 * anything was written, docs/web-settings.md) is sent again by itself, the same request with the same Idempotency-Key,
 * after its Retry-After, up to BUSY_RETRIES times; the form stays busy meanwhile (forms.ts onSubmit).
 */
import type * as z from 'zod/mini';
import type { ErrorCode } from '../../shared/errors';
import { pagePath } from '../../shared/browser/dom';
import { requestJson, type JsonAnswer } from '../../shared/browser/json-request';
import type { WEBHOOK_CONTRACTS } from '../../webhooks/webhook-contracts';
import type { SETTINGS_CONTRACTS } from '../settings-contracts';
import type { SIGN_IN_CONTRACTS } from '../../sign-in/sign-in-contracts';
import { state, type NoticeKind } from './page-state';

type Contracts = typeof SETTINGS_CONTRACTS & typeof SIGN_IN_CONTRACTS & typeof WEBHOOK_CONTRACTS;
/** A route of the settings API (web settings' own and the webhook callbacks'). */
export type SettingsRoute = keyof Contracts;
/** What a route answers on success. */
export type ResponseOf<R extends SettingsRoute> = z.output<Contracts[R]['data']>;
/** What a route takes as its body (never, for a route without one). */
export type BodyOf<R extends SettingsRoute> = Contracts[R] extends { readonly body: infer B extends z.ZodMiniType } ? z.input<B> : never;

export interface Success<T> {
  readonly ok: true;
  readonly status: number;
  readonly data: T;
  readonly ended?: undefined;
}
export interface Failure {
  readonly ok: false;
  /** 0: the service could not be reached. */
  readonly status: number;
  readonly code?: ErrorCode;
  message?: string;
  readonly retryAfter?: string | null;
  /** The session is gone: the page went back to signing in (when someone was signed in). */
  ended?: true;
}
export type Result<T> = Success<T> | Failure;

const API = pagePath() + '/api/';

/** How many times a call refused as PASSWORD_CHECK_BUSY is sent again by itself. */
export const BUSY_RETRIES = 3;
/** The longest Retry-After the page waits out by itself (seconds): a longer wait is the owner's to choose. */
export const BUSY_LONGEST_WAIT_SECONDS = 10;

/** The seconds to wait before sending a refused call again, when it was a busy password check the page retries by itself. */
function busyWait(answer: JsonAnswer): number | undefined {
  if (!answer.reached || answer.status !== 503 || (answer.body as { code?: unknown } | null)?.code !== 'PASSWORD_CHECK_BUSY') return undefined;
  const seconds = Number(answer.retryAfter);
  return Number.isInteger(seconds) && seconds >= 1 && seconds <= BUSY_LONGEST_WAIT_SECONDS ? seconds : undefined;
}

let sessionLost: (message: string, kind: NoticeKind) => void = () => undefined;

/** What the page does when a call finds the signed-in session gone: back to signing in, saying why. */
export function whenSessionLost(handler: (message: string, kind: NoticeKind) => void): void {
  sessionLost = handler;
}

export async function call<R extends SettingsRoute>(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: BodyOf<R>,
  options: { readonly idempotencyKey?: string } = {},
): Promise<Result<ResponseOf<R>>> {
  const headers: Record<string, string> = {};
  if (method !== 'GET') headers['X-Settings-Request'] = '1';
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
  const send = () => requestJson(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let answer = await send();
  for (let retry = 0; retry < BUSY_RETRIES; retry += 1) {
    const wait = busyWait(answer);
    if (wait === undefined) break;
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    answer = await send();
  }
  if (!answer.reached) return { ok: false, status: 0 };
  if (answer.ok) return { ok: true, status: answer.status, data: (answer.body || {}) as ResponseOf<R> };
  const error = (answer.body || {}) as { code?: ErrorCode; message?: string };
  const result: Failure = { ok: false, status: answer.status, code: error.code, message: error.message, retryAfter: answer.retryAfter };
  if (answer.status === 401 && result.code === 'SESSION_REQUIRED') {
    result.ended = true;
    if (state.account) sessionLost('Your session has ended. Please sign in again.', 'info');
  }
  // Two settings_session cookies: another website of the domain set one; every call is refused until it is removed.
  if (result.code === 'DUPLICATE_CREDENTIAL_COOKIE') {
    result.message =
      'Your browser sent two web settings sign-in cookies, so another website may have set one: every request is refused until it is gone. Remove this site\u2019s cookies (and those of the domain it is under) in your browser settings, then sign in again.';
    if (state.account) sessionLost(result.message, 'error');
  }
  return result;
}
