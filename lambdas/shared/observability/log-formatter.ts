/**
 * The shape of every log line the service writes (Powertools Logger with
 * this formatter, logger.ts): Powertools' standard keys, then the request's
 * own keys from the request scope (request id, route, the Lambda
 * invocation), then the caller's fields, everything redacted (redaction.ts).
 *
 * The per-request keys come from the scope, not from the shared logger's
 * appended keys or Lambda context: the local stack and the tests run many
 * requests at once in one process, where those would be another request's.
 */
import { LogFormatter, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import { lineAskedAt } from './log-formatter-time';
import { redactFieldsInto, scrubText } from './redaction';
import { currentRequestScope } from './request-scope';

export class ServiceLogFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additionalLogAttributes: LogAttributes): LogItem {
    const line: LogAttributes = {
      level: attributes.logLevel,
      message: scrubText(attributes.message ?? ''),
      // A line asked before Powertools loaded carries the time it was asked (logger.ts).
      timestamp: this.formatTimestamp(lineAskedAt() ?? attributes.timestamp),
      service: attributes.serviceName,
    };
    const scope = currentRequestScope();
    if (scope) {
      line.request_id = scope.requestId;
      line.route = scope.route;
      line.function_name = scope.invocation?.functionName;
      line.function_request_id = scope.invocation?.functionRequestId;
      line.cold_start = scope.invocation?.coldStart;
    }
    // Only where debug sampling is on (deployed functions): otherwise every line would say 0.
    if (attributes.sampleRateValue) line.sampling_rate = attributes.sampleRateValue;
    line.xray_trace_id = attributes.xRayTraceId;
    // The caller's fields last, redacted straight into the line (Powertools drops the empty keys when printing).
    redactFieldsInto(line, additionalLogAttributes, (error) => this.formatError(error));
    return new LogItem({ attributes: line });
  }

  /**
   * Powertools' error shape (name, code location, message, stack) with the cause and own fields left
   * as they are: redact() walks them next, with cycle protection, and scrubs every string.
   */
  override formatError(error: Error): LogAttributes {
    const shape: LogAttributes = { name: error.name, location: this.getCodeLocation(error.stack), message: error.message, stack: error.stack };
    if (error.cause !== undefined) shape.cause = error.cause;
    for (const [name, value] of Object.entries(error)) if (!(name in shape)) shape[name] = value;
    return shape;
  }
}
