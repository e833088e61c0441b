/**
 * What the service writes while a test runs, read back: its logger's lines
 * (Powertools: INFO and DEBUG on stdout, WARN and ERROR on stderr) and, when
 * a test runs as in Lambda, its metric documents (EMF, on stdout), in the
 * order written. Nothing reaches the terminal while capturing; restore with
 * vi.restoreAllMocks().
 */
import { vi } from 'vitest';

export type LogLine = Record<string, unknown> & { level?: string; message?: string };

/** An EMF document as Powertools Metrics writes it. */
export interface EmfDocument {
  readonly _aws: { readonly Timestamp: number; readonly CloudWatchMetrics: readonly { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  readonly [field: string]: unknown;
}

export interface LogCapture {
  /** Everything written, as one text. */
  text(): string;
  /** Every JSON line written (log lines and metric documents). */
  json(): Record<string, unknown>[];
  /** The logger's lines. */
  lines(): LogLine[];
  /** The metric documents. */
  metrics(): EmfDocument[];
}

export function captureLogs(): LogCapture {
  const chunks: string[] = [];
  const keep = (chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(keep);
  vi.spyOn(process.stderr, 'write').mockImplementation(keep);
  const text = () => chunks.join('');
  const json = () =>
    text()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    text,
    json,
    lines: () => json().filter((line): line is LogLine => !('_aws' in line)),
    metrics: () => json().filter((line): line is EmfDocument => '_aws' in line),
  };
}
