/**
 * What a local stack has started, stopped once, last started first: the
 * scheduled jobs and the front before the webhook workers, and those before
 * the DynamoDB Local they use. The same sequence undoes a start that fails
 * half-way (a port taken, a table not created), so nothing it had started
 * keeps running. A part that fails to stop is reported and the others are
 * still stopped; the first failure is thrown at the end.
 */
export class StopSequence {
  private readonly parts: Array<{ readonly name: string; readonly stop: () => Promise<void> }> = [];
  private stopping: Promise<void> | undefined;

  /** Register a part once it has started. */
  add(name: string, stop: () => Promise<void>): void {
    this.parts.push({ name, stop });
  }

  /** Stop every part, in reverse order of start; idempotent (every call gets the same result). */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    const failures: unknown[] = [];
    for (const part of [...this.parts].reverse()) {
      try {
        await part.stop();
      } catch (error) {
        failures.push(error);
        console.error(`local stack: stopping ${part.name} failed:`, error);
      }
    }
    if (failures.length > 0) throw new Error(`The local stack did not stop cleanly (${failures.length} part(s) failed)`, { cause: failures[0] });
  }
}
