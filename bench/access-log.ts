/**
 * Reads the handlers' access log while the benchmark runs: every line the
 * service's logger writes to stdout is taken off the stream (so the table is
 * not buried under thousands of JSON lines), and the `request` lines are kept
 * by request id with their DynamoDB accounting. Anything else written to
 * stdout passes through untouched.
 */

/** The `dynamo` field of an access-log line (see lambdas/shared/http/pipeline.ts). */
export interface DynamoFigures {
  readonly calls: number;
  readonly round_trips: number;
  readonly rcu: number;
  readonly wcu: number;
}

interface LogLine {
  readonly service?: string;
  readonly level?: string;
  readonly message?: string;
  readonly request_id?: string;
  readonly dynamo?: DynamoFigures;
}

export class AccessLogCapture {
  private readonly byRequestId = new Map<string, DynamoFigures | undefined>();
  private readonly failures: string[] = [];
  private original: typeof process.stdout.write | undefined;
  private pending = '';

  start(): void {
    if (this.original) return;
    const original = process.stdout.write.bind(process.stdout) as typeof process.stdout.write;
    this.original = original;
    process.stdout.write = ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
      const done = typeof encoding === 'function' ? encoding : callback;
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const passed = this.consume(text);
      if (passed) return original(passed, done as (error?: Error | null) => void);
      if (typeof done === 'function') (done as () => void)();
      return true;
    }) as typeof process.stdout.write;
  }

  stop(): void {
    if (!this.original) return;
    process.stdout.write = this.original;
    this.original = undefined;
    if (this.pending) process.stdout.write(this.pending);
    this.pending = '';
  }

  /** The DynamoDB figures logged for a request, removed from the capture; undefined if it logged none. */
  take(requestId: string): DynamoFigures | undefined {
    const figures = this.byRequestId.get(requestId);
    this.byRequestId.delete(requestId);
    return figures;
  }

  /** Forget what was captured (e.g. the warmup's lines). */
  clear(): void {
    this.byRequestId.clear();
  }

  /** Error lines the service logged since the last call (a benchmark of failing requests measures nothing). */
  drainFailures(): string[] {
    return this.failures.splice(0);
  }

  /** Keep the service's lines, return the text that is not theirs. */
  private consume(text: string): string {
    const lines = (this.pending + text).split('\n');
    this.pending = lines.pop() ?? '';
    let passed = '';
    for (const line of lines) {
      const parsed = parseServiceLine(line);
      if (!parsed) {
        passed += `${line}\n`;
        continue;
      }
      if (parsed.level === 'error') this.failures.push(line);
      if (parsed.message === 'request' && parsed.request_id) this.byRequestId.set(parsed.request_id, parsed.dynamo);
    }
    return passed;
  }
}

function parseServiceLine(line: string): LogLine | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(line) as LogLine;
    return parsed.service === 'partner-api' ? parsed : undefined;
  } catch {
    return undefined;
  }
}
