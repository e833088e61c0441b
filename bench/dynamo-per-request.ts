/**
 * Per-request DynamoDB work of a set of requests, from the handlers' own
 * access-log lines (taken off the capture, so each line is counted once).
 */
import type { AccessLogCapture, DynamoFigures } from './access-log';
import type { DynamoPerRequest } from './scenario';
import { mean, round } from './stats';

const histogramOf = (values: readonly number[]) => {
  const histogram: Record<string, number> = {};
  for (const value of values) histogram[value] = (histogram[value] ?? 0) + 1;
  return histogram;
};

export function summarizeDynamo(
  figures: readonly DynamoFigures[],
  source: DynamoPerRequest['source'],
  options: { logged?: number; firstTryCalls?: number } = {},
): DynamoPerRequest | undefined {
  if (figures.length === 0) return undefined;
  const roundTrips = figures.map((f) => f.round_trips);
  const { firstTryCalls } = options;
  return {
    source,
    calls: round(mean(figures.map((f) => f.calls)), 2),
    round_trips: round(mean(roundTrips), 2),
    rcu: round(mean(figures.map((f) => f.rcu)), 2),
    wcu: round(mean(figures.map((f) => f.wcu)), 2),
    logged: options.logged ?? figures.length,
    calls_max: Math.max(...figures.map((f) => f.calls)),
    round_trips_min: Math.min(...roundTrips),
    round_trips_max: Math.max(...roundTrips),
    round_trips_histogram: histogramOf(roundTrips),
    calls_histogram: histogramOf(figures.map((f) => f.calls)),
    rcu_max: round(Math.max(...figures.map((f) => f.rcu)), 2),
    wcu_max: round(Math.max(...figures.map((f) => f.wcu)), 2),
    ...(firstTryCalls === undefined ? {} : { retried: figures.filter((f) => f.calls > firstTryCalls).length }),
  };
}

/**
 * The mean (and range) over the requests' access-log lines; undefined if none
 * logged figures. `firstTryCalls`: the calls a request makes when no write is
 * retried, to count the requests that retried one.
 */
export function dynamoPerRequest(accessLog: AccessLogCapture, requestIds: readonly string[], firstTryCalls?: number): DynamoPerRequest | undefined {
  const figures = requestIds.map((id) => accessLog.take(id)).filter((f): f is DynamoFigures => f !== undefined);
  return summarizeDynamo(figures, 'access-log', { firstTryCalls });
}

/** The figures of one raw DynamoDB call, from its ConsumedCapacity (ReturnConsumedCapacity: TOTAL). */
export function probeFigures(kind: 'read' | 'write', consumed: { CapacityUnits?: number } | undefined): DynamoPerRequest | undefined {
  const units = consumed?.CapacityUnits ?? 0;
  return summarizeDynamo([{ calls: 1, round_trips: 1, rcu: kind === 'read' ? units : 0, wcu: kind === 'write' ? units : 0 }], 'probe', { logged: 0 });
}
