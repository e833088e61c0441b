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
 * POWERTOOLS_LOGGER_SAMPLE_RATE when set; none locally (log-settings.ts).
 *
 * `logger` is a facade over the process's output (output.ts): Powertools is
 * not in a cold start's modules but loads on the first line or at an
 * invocation's start; a line asked before is written once it has loaded, in
 * order, with its request's keys and the time it was asked, and before the
 * invocation ends (invocation.ts awaits the output).
 */
import type { LogItemExtraInput, LogItemMessage } from '@aws-lambda-powertools/logger/types';
import { atTime } from './log-formatter-time';
import { loggerSettings } from './log-settings';
import { serviceOutput } from './output';

export { configuredLogLevel, debugSampleRate, DEPLOYED_DEBUG_SAMPLE_RATE } from './log-settings';

type Line = (input: LogItemMessage, ...extraInput: LogItemExtraInput) => void;
export interface ServiceLogger {
  readonly debug: Line;
  readonly info: Line;
  readonly warn: Line;
  readonly error: Line;
  /** Re-decide debug sampling (each invocation, invocation.ts). */
  refreshSampleRateCalculation(): void;
}

/** Read when this module loads, as Powertools' Logger read them when it was built here. */
export const LOGGER_SETTINGS = loggerSettings();

const line =
  (level: 'debug' | 'info' | 'warn' | 'error'): Line =>
  (input, ...extraInput) =>
    serviceOutput.write(({ serviceLogger }, askedAt) => atTime(askedAt, () => serviceLogger(LOGGER_SETTINGS)[level](input, ...extraInput)));

export const logger: ServiceLogger = {
  debug: line('debug'),
  info: line('info'),
  warn: line('warn'),
  error: line('error'),
  refreshSampleRateCalculation: () => serviceOutput.write(({ serviceLogger }) => serviceLogger(LOGGER_SETTINGS).refreshSampleRateCalculation()),
};
