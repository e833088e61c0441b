/**
 * Latency statistics. Percentiles use the nearest-rank definition (the value
 * at rank ceil(q·n) of the sorted samples), so p99 of 2,000 samples is a
 * sample that was actually observed, never an interpolation.
 */

export interface LatencySummary {
  readonly samples: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly mean_ms: number;
  readonly max_ms: number;
  /** Completed operations per second of wall time over the measured phase. */
  readonly throughput_rps: number;
}

export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error('percentile of no samples');
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}

export function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 0.5);
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
}

export function summarizeLatency(durationsMs: readonly number[], elapsedMs: number): LatencySummary {
  const sorted = [...durationsMs].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50_ms: round(percentile(sorted, 0.5)),
    p99_ms: round(percentile(sorted, 0.99)),
    mean_ms: round(mean(sorted)),
    max_ms: round(sorted[sorted.length - 1]),
    throughput_rps: round((sorted.length / elapsedMs) * 1000, 1),
  };
}

export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
