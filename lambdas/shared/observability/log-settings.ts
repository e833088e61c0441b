/**
 * How the service's logger and metrics are configured from the function's environment, without Powertools: the
 * facades (logger.ts, metrics.ts) are in a cold start's modules, Powertools itself is not (powertools.ts).
 */
import type { LogLevel } from '@aws-lambda-powertools/logger';

/** Share of a deployed function's invocations logged at DEBUG. */
export const DEPLOYED_DEBUG_SAMPLE_RATE = 0.01;

type Level = (typeof LogLevel)[keyof typeof LogLevel];
/** Powertools' LogLevel values, named here so that reading the setting loads nothing of Powertools. */
const LEVEL_NAMES = { TRACE: 'TRACE', DEBUG: 'DEBUG', INFO: 'INFO', WARN: 'WARN', ERROR: 'ERROR', SILENT: 'SILENT', CRITICAL: 'CRITICAL' } as const satisfies Record<keyof typeof LogLevel, Level>;
const LEVELS = new Set<string>(Object.values(LEVEL_NAMES));
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

/** The stage dimension: the stack sets STAGE on every function. */
export const stageOfFunction = (env: NodeJS.ProcessEnv = process.env) => env.STAGE ?? 'local';

/** The Powertools Logger's settings from the environment. */
export interface LoggerSettings {
  readonly logLevel: Level | undefined;
  readonly sampleRateValue: number | undefined;
}

export const loggerSettings = (env: NodeJS.ProcessEnv = process.env): LoggerSettings => ({ logLevel: configuredLogLevel(env), sampleRateValue: debugSampleRate(env) });
