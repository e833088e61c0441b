/**
 * How long after a change the caller's retry of it is recognised as that change (docs/web-settings.md, "A change
 * retried after its answer was lost"). A change can be applied while its caller sees an error (every answer lost, or
 * the function ended after the write); the caller then sends the same request again, within minutes: the page's
 * user signs in again and repeats it. Within this window the retry answers what happened instead of a refusal; after
 * it, what the retry proves (the password it replaced, the code that confirmed two-factor) is no longer asked about.
 */
export const CHANGE_RETRY_WINDOW_MS = 15 * 60_000;
