/**
 * Ratios against the same run's baselines, the printed tables and the
 * machine-readable results.
 */
import type { BundleRow, LatencyRow, Row } from './scenario';
import { round } from './stats';

export interface LatencyResult extends LatencyRow {
  /** This row's figures divided by its baseline row's (same concurrency, same run). */
  readonly ratio?: { readonly p50: number; readonly p99: number; readonly baseline_p50_ms: number; readonly baseline_p99_ms: number };
}

export interface BundleResult extends BundleRow {
  readonly ratio?: {
    readonly kib: number;
    readonly import_deployed: number;
    readonly import_plain: number;
    /** Milliseconds the bundle's require() adds over the baseline bundle's (deployed NODE_OPTIONS). */
    readonly import_deployed_over_baseline_ms: number;
  };
}

export function withRatios(rows: readonly Row[]): { latency: LatencyResult[]; bundles: BundleResult[] } {
  const latencyRows = rows.filter((r): r is LatencyRow => r.kind === 'latency');
  const bundleRows = rows.filter((r): r is BundleRow => r.kind === 'bundle');

  const latency = latencyRows.map((row): LatencyResult => {
    const ref = row.baseline;
    const base = ref && latencyRows.find((b) => b.scenario === ref.scenario && b.variant === ref.variant && b.concurrency === row.concurrency);
    if (!base) return row;
    return {
      ...row,
      ratio: { p50: round(row.p50_ms / base.p50_ms, 2), p99: round(row.p99_ms / base.p99_ms, 2), baseline_p50_ms: base.p50_ms, baseline_p99_ms: base.p99_ms },
    };
  });

  const bundles = bundleRows.map((row): BundleResult => {
    const base = row.baseline && bundleRows.find((b) => b.name === row.baseline);
    if (!base) return row;
    return {
      ...row,
      ratio: {
        kib: round(row.bytes / base.bytes, 1),
        import_deployed: round(row.import_deployed.median_ms / base.import_deployed.median_ms, 1),
        import_plain: round(row.import_plain.median_ms / base.import_plain.median_ms, 1),
        import_deployed_over_baseline_ms: round(row.import_deployed.median_ms - base.import_deployed.median_ms, 1),
      },
    };
  });
  return { latency, bundles };
}

type Cell = string | number | undefined;

function table(headers: readonly string[], rows: readonly Cell[][], rightAligned: ReadonlySet<number>): string {
  const text = rows.map((row) => row.map((cell) => (cell === undefined ? '–' : String(cell))));
  const widths = headers.map((h, i) => Math.max(h.length, ...text.map((row) => row[i].length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n');
}

const fixed = (value: number | undefined, digits: number) => (value === undefined ? undefined : value.toFixed(digits));
const times = (value: number | undefined) => (value === undefined ? undefined : `${value.toFixed(value >= 10 ? 1 : 2)}×`);
const figure = (value: number | undefined) => (value === undefined ? undefined : String(round(value, 2)));

export function latencyTable(rows: readonly LatencyResult[]): string {
  const headers = ['scenario', 'variant', 'clients', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'req/s', 'p50 ×base', 'p99 ×base', 'calls', 'round trips', 'RCU', 'WCU'];
  const body = rows.map((r) => [
    r.label,
    r.variant,
    r.concurrency,
    r.samples,
    fixed(r.p50_ms, 2),
    fixed(r.p99_ms, 2),
    fixed(r.mean_ms, 2),
    fixed(r.throughput_rps, 0),
    times(r.ratio?.p50),
    times(r.ratio?.p99),
    figure(r.dynamo?.calls),
    r.dynamo && (r.dynamo.round_trips_min === r.dynamo.round_trips_max ? String(r.dynamo.round_trips) : `${r.dynamo.round_trips} (${r.dynamo.round_trips_min}–${r.dynamo.round_trips_max})`),
    figure(r.dynamo?.rcu),
    figure(r.dynamo?.wcu),
  ]);
  return table(headers, body, new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]));
}

export function bundleTable(rows: readonly BundleResult[]): string {
  const headers = ['bundle', 'KiB', 'map KiB', 'require ms', '×bare', '+ms over bare', 'no source maps: ms', '×bare'];
  const body = rows.map((r) => [
    r.name,
    fixed(r.kib, 1),
    fixed(r.source_map_kib, 1),
    fixed(r.import_deployed.median_ms, 1),
    times(r.ratio?.import_deployed),
    r.ratio && `+${r.ratio.import_deployed_over_baseline_ms.toFixed(1)}`,
    fixed(r.import_plain.median_ms, 1),
    times(r.ratio?.import_plain),
  ]);
  return table(headers, body, new Set([1, 2, 3, 4, 5, 6, 7]));
}
