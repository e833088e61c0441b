/**
 * Reads the handlers' access log while the benchmark runs: every line the
 * service's logger writes to stdout or stderr is taken off the stream (so the
 * table is not buried under thousands of JSON lines), the `request` lines are
 * kept by request id with their DynamoDB accounting, and ERROR lines are kept
 * as failures. Anything else written passes through untouched.
 */

/** The `dynamo` field of an access-log line (see lambdas/shared/http/pipeline.ts). */
export interface DynamoFigures {
  readonly calls: number;
  readonly round_trips: number;
  readonly rcu: number;
  readonly wcu: number;
  /** Logged only when not zero: items and reported units of write transactions, refused conditions, cancelled items. */
  readonly tx_items?: number;
  readonly tx_wcu?: number;
  readonly failed_conditions?: number;
  readonly cancelled_tx_items?: number;
}

/** What one request's access-log line says about its cost. */
export interface RequestFigures {
  readonly dynamo?: DynamoFigures;
  /** The handler's own time (the pipeline's `duration_ms`). */
  readonly durationMs?: number;
}

interface LogLine {
  readonly service?: string;
  readonly level?: string;
  readonly message?: string;
  readonly request_id?: string;
  readonly dynamo?: DynamoFigures;
  readonly duration_ms?: number;
}

type Write = typeof process.stdout.write;

/** The process streams the service's logger writes to: INFO and DEBUG to stdout, WARN and ERROR to stderr (Powertools). */
const STREAMS = [process.stdout, process.stderr] as const;

export class AccessLogCapture {
  private readonly byRequestId = new Map<string, RequestFigures>();
  private readonly failures: string[] = [];
  private originals: Write[] | undefined;
  private readonly pending = ['', ''];
  /** Bytes of the service's lines so far (newlines included): what CloudWatch Logs would ingest from the handlers. */
  serviceBytes = 0;

  start(): void {
    if (this.originals) return;
    this.originals = STREAMS.map((stream, index) => {
      const original = stream.write.bind(stream) as Write;
      stream.write = ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
        const done = typeof encoding === 'function' ? encoding : callback;
        const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
        const passed = this.consume(index, text);
        if (passed) return original(passed, done as (error?: Error | null) => void);
        if (typeof done === 'function') (done as () => void)();
        return true;
      }) as Write;
      return original;
    });
  }

  stop(): void {
    if (!this.originals) return;
    STREAMS.forEach((stream, index) => {
      stream.write = (this.originals as Write[])[index];
      if (this.pending[index]) stream.write(this.pending[index]);
      this.pending[index] = '';
    });
    this.originals = undefined;
  }

  /** The DynamoDB figures logged for a request, removed from the capture; undefined if it logged none. */
  take(requestId: string): DynamoFigures | undefined {
    return this.takeRequest(requestId)?.dynamo;
  }

  /** The request's line (DynamoDB figures and handler time), removed from the capture; undefined if none was logged. */
  takeRequest(requestId: string): RequestFigures | undefined {
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
  private consume(stream: number, text: string): string {
    const lines = (this.pending[stream] + text).split('\n');
    this.pending[stream] = lines.pop() ?? '';
    let passed = '';
    for (const line of lines) {
      const parsed = parseServiceLine(line);
      if (!parsed) {
        passed += `${line}\n`;
        continue;
      }
      this.serviceBytes += Buffer.byteLength(line) + 1;
      if (parsed.level?.toUpperCase() === 'ERROR') this.failures.push(line);
      if (parsed.message === 'request' && parsed.request_id) this.byRequestId.set(parsed.request_id, { dynamo: parsed.dynamo, durationMs: parsed.duration_ms });
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
