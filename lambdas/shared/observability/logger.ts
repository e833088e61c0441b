/**
 * The service's one logger: Powertools Logger, JSON, one line per event,
 * every line in the shape of log-formatter.ts (request id and route from the
 * request scope, everything redacted by redaction.ts). INFO and DEBUG go to
 * stdout, WARN and ERROR to stderr (Powertools' console); in Lambda both end
 * in the function's log group.
 *
 * Level: LOG_LEVEL (the stack sets the stage's), unless Lambda's Advanced
 * Logging Controls set one, which Powertools follows. Debug sampling: in a
 * deployed function DEPLOYED_DEBUG_SAMPLE_RATE of the invocations log at
 * DEBUG (re-decided per invocation, invocation.ts), or
 * POWERTOOLS_LOGGER_SAMPLE_RATE when set; none locally.
 */
import { Logger, LogLevel } from '@aws-lambda-powertools/logger';
import { ServiceLogFormatter } from './log-formatter';
import { SERVICE_NAME } from './metric-catalog';

/** Share of a deployed function's invocations logged at DEBUG. */
export const DEPLOYED_DEBUG_SAMPLE_RATE = 0.01;

type Level = (typeof LogLevel)[keyof typeof LogLevel];
const LEVELS = new Set<string>(Object.values(LogLevel));
const isLevel = (name: string): name is Level => LEVELS.has(name);

/** LOG_LEVEL in any letter case; undefined (Powertools' INFO) when unset or unknown. */
export function configuredLogLevel(env: NodeJS.ProcessEnv = process.env): Level | undefined {
  const level = env.LOG_LEVEL?.toUpperCase();
  return level !== undefined && isLevel(level) ? level : undefined;
}

/** The debug sample rate: Powertools' own variable when set (undefined lets it read it), in Lambda the deployed rate, else none. */
export function debugSampleRate(env: NodeJS.ProcessEnv = process.env): number | undefined {
  if (env.POWERTOOLS_LOGGER_SAMPLE_RATE !== undefined) return undefined;
  return env.AWS_LAMBDA_FUNCTION_NAME !== undefined ? DEPLOYED_DEBUG_SAMPLE_RATE : 0;
}

export const logger = new Logger({
  serviceName: SERVICE_NAME,
  logLevel: configuredLogLevel(),
  sampleRateValue: debugSampleRate(),
  logFormatter: new ServiceLogFormatter(),
});
