/// <reference lib="dom" />
/**
 * Browser code of the settings page: the Idempotency-Key of a creation form's request (creating a key, adding a
 * webhook callback; docs/web-settings.md, "Retrying a creation"). One key per request the form makes, kept across the
 * owner's retries of that request after an error and given up once the request is answered for good (created, or
 * found created by an earlier attempt) or when the form asks for something else. The password and the code are no part
 * of the request: retyping them (a retry needs a fresh code) keeps the key.
 *
 * Kept in this page's memory only: the settings page stores nothing in the browser (test/unit/settings/settings-page.test.ts).
 * A reload in between starts a new request; the key list (or the callbacks list) then shows what the lost answer
 * created, to revoke or keep.
 */
import { refusalText } from './messages';
import type { Failure } from './settings-api';

export interface SubmissionKey {
  /** The key for `request` (what the form asks for, credentials left out): the pending one for the same request, else a new one. */
  for(request: object): string;
  /** The request was answered for good: the next submission is a new request. */
  settle(): void;
}

interface Pending {
  readonly request: string;
  readonly key: string;
}

/** The submission keys of one creation form. */
export function submissionKey(): SubmissionKey {
  let pending: Pending | null = null;
  return {
    for(request) {
      const asked = JSON.stringify(request);
      if (pending && pending.request === asked) return pending.key;
      pending = { request: asked, key: randomKey() };
      return pending.key;
    },
    settle() {
      pending = null;
    },
  };
}

/**
 * What a form says when its request failed: after an error that may come after the creation (the service unreachable,
 * a 5xx: the answer may be what was lost), that sending the same form again is safe.
 */
export function failedSubmissionText(result: Failure, what: string): string {
  // A busy password check was refused before anything was written: nothing to tell about a lost creation.
  const unknown = result.status === 0 || (result.status >= 500 && result.code !== 'PASSWORD_CHECK_BUSY');
  return refusalText(result) + (unknown ? ' Send the form again: if the ' + what + ' was created, you are told so, and it is never created twice.' : '');
}

/** 144 random bits as 36 hex digits (the API takes 16–128 of A–Z a–z 0–9 _ -). */
function randomKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(18)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
