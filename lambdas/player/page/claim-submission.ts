/// <reference lib="dom" />
/**
 * Browser code of the join page: the claim's submission, kept by this browser until the claim has its answer, so
 * that the claim is resumable. The claim's answer carries the player's only credential (its cookie); when that answer
 * is lost after the claim was applied (a 5xx, a dropped connection, a closed tab), the page submits again with the
 * same submission id and the service hands the credential out again (lambdas/invitations/claim.ts). The id is 32
 * random bytes from the browser's CSPRNG; the service stores only its digest, and it is useless without the link's
 * token, which the page sends with it.
 *
 * Kept in localStorage under the page's path (one per link), so that reopening the link after closing the tab finds
 * it; forgotten once the claim is answered (the cookie is then the browser's access) or refused. Where storage is
 * unavailable (disabled, full), the page keeps it in memory: submitting again from the same page still works.
 */
import { base } from './player-api';

/** What the page sent with its claim, sent again as it was when the claim is resumed. */
export interface Submission {
  readonly submission_id: string;
  readonly in_game_name: string;
  readonly game_account_id: string;
}

const KEY = 'claim-submission:' + base;
let inMemory: Submission | undefined;

/** A new submission id: 32 random bytes, base64url (43 characters). */
export function newSubmissionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function isSubmission(value: unknown): value is Submission {
  const s = value as Partial<Submission> | null;
  return !!s && typeof s.submission_id === 'string' && typeof s.in_game_name === 'string' && typeof s.game_account_id === 'string';
}

/** The submission of this link whose answer this browser has not received, if any. */
export function pendingSubmission(): Submission | undefined {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(KEY) ?? 'null');
    if (isSubmission(stored)) return stored;
  } catch {
    // Storage refused or its entry unreadable: what this page kept, if anything.
  }
  return inMemory;
}

/** Keep the submission before it is sent: its answer may never arrive. */
export function keepSubmission(submission: Submission): void {
  inMemory = submission;
  try {
    localStorage.setItem(KEY, JSON.stringify(submission));
  } catch {
    // Kept in memory only: this page can still submit it again.
  }
}

/** The claim was answered (the cookie is the access now) or refused: nothing to resume. */
export function forgetSubmission(): void {
  inMemory = undefined;
  try {
    localStorage.removeItem(KEY);
  } catch {
    // Nothing stored.
  }
}
