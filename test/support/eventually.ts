/**
 * Polls `probe` every 100 ms until it answers something other than
 * undefined, for work that finishes in the background (the local webhook
 * pipeline, scheduled jobs); fails with `what` after `timeoutMs`. A bound on
 * waiting, not an assertion on speed.
 */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
