/**
 * Structured JSON logs, one line per event, with the request id of the
 * invocation attached. Callers pass facts, never secrets: API keys and
 * Authorization headers are never handed to the logger.
 */
import { currentRequestScope } from './request-scope';

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function threshold(): number {
  const configured = (process.env.LOG_LEVEL ?? 'info').toLowerCase() as Level;
  return ORDER[configured] ?? ORDER.info;
}

function write(level: Level, message: string, fields: Record<string, unknown>): void {
  if (ORDER[level] < threshold()) return;
  const scope = currentRequestScope();
  const line = {
    level,
    message,
    timestamp: new Date().toISOString(),
    service: 'partner-api',
    ...(scope ? { request_id: scope.requestId } : {}),
    ...fields,
  };
  process.stdout.write(`${JSON.stringify(line, errorReplacer)}\n`);
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack, ...(value.cause !== undefined ? { cause: value.cause } : {}) };
  }
  return value;
}

export const logger = {
  debug: (message: string, fields: Record<string, unknown> = {}) => write('debug', message, fields),
  info: (message: string, fields: Record<string, unknown> = {}) => write('info', message, fields),
  warn: (message: string, fields: Record<string, unknown> = {}) => write('warn', message, fields),
  error: (message: string, fields: Record<string, unknown> = {}) => write('error', message, fields),
};
