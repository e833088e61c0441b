/**
 * The service's writer of log lines and metric documents: Powertools Logger (JSON, the shape of log-formatter.ts) and
 * Metrics (embedded metric format). Imported by output.ts on first use, so a chunk of its own that a cold start does not
 * load: the request's first round trip is in flight while it loads (docs/infrastructure.md "Cold start"). Each
 * instance is built on its first write, with the settings its facade read from the environment when it was imported
 * (logger.ts, metrics.ts), as the instances themselves were built before Powertools was deferred.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { ServiceLogFormatter } from './log-formatter';
import type { LoggerSettings } from './log-settings';
import { METRIC_NAMESPACE, SERVICE_NAME, STAGE_DIMENSION } from './metric-catalog';

let logger: Logger | undefined;
let metrics: Metrics | undefined;

/** The process's one Powertools Logger. */
export function serviceLogger(settings: LoggerSettings): Logger {
  logger ??= new Logger({ serviceName: SERVICE_NAME, ...settings, logFormatter: new ServiceLogFormatter() });
  return logger;
}

/** The process's one Powertools Metrics, in `stage`, warning through the service's logger. */
export function serviceMetrics(stage: string, loggerSettings: LoggerSettings): Metrics {
  metrics ??= new Metrics({
    namespace: METRIC_NAMESPACE,
    serviceName: SERVICE_NAME,
    defaultDimensions: { [STAGE_DIMENSION]: stage },
    logger: serviceLogger(loggerSettings),
  });
  return metrics;
}
