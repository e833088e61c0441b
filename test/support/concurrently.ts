/**
 * `count` requests, at most 16 in flight at once: every request races others on the same counter
 * item, and the single DynamoDB Local of a loaded test machine still answers each within the
 * admission's time budget (beyond it, admission fails closed with 503, and the count is no proof).
 */
export async function concurrently<T>(count: number, send: (i: number) => Promise<T>): Promise<T[]> {
  const responses: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next;
      next += 1;
      responses[i] = await send(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(16, count) }, worker));
  return responses;
}
