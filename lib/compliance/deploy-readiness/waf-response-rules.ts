/**
 * WAF custom responses: the status codes WAF can answer with, and the quotas on custom headers and
 * bodies per web ACL or rule group. CloudFormation's schema takes any code from 200 to 599 and any
 * number of headers; WAF refuses the rest when the web ACL is created or updated.
 */
import { defineRule, isObject, type Problem } from './rule';
import { customResponsesIn, ruleHolders } from './waf-resources';

/** https://docs.aws.amazon.com/waf/latest/developerguide/customizing-the-response-status-codes.html */
export const WAF_RESPONSE_STATUS_CODES: ReadonlySet<number> = new Set([
  200, 201, 202, 204, 206, 300, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 405, 408, 409, 411, 412, 413, 414, 415, 416, 421, 429, 500, 501, 502,
  503, 504, 505,
]);

// Supported status codes for custom response:
// https://docs.aws.amazon.com/waf/latest/developerguide/customizing-the-response-status-codes.html
export const wafCustomResponseStatus = defineRule({
  id: 'waf-custom-response-status',
  title: 'WAF custom responses use a status code WAF supports',
  docs: 'https://docs.aws.amazon.com/waf/latest/developerguide/customizing-the-response-status-codes.html',
  problems: (stacks) =>
    ruleHolders(stacks).flatMap((holder) =>
      customResponsesIn(holder).flatMap(({ response, path }): Problem[] => {
        const code = Number(response.ResponseCode);
        if (WAF_RESPONSE_STATUS_CODES.has(code)) return [];
        return [
          {
            stackName: holder.stack.stackName,
            logicalId: holder.logicalId,
            locations: [`${path}/ResponseCode`],
            problem: `custom response status ${String(response.ResponseCode)} is not one WAF supports`,
            fix: `Answer with a supported code (${[...WAF_RESPONSE_STATUS_CODES].join(' ')}); for an oversized header, 400 or 413.`,
          },
        ];
      }),
    ),
});

/** AWS quota: 100 custom response headers per web ACL or rule group. */
export const WAF_RESPONSE_HEADERS_QUOTA = 100;
/** Half of the quota: the rest is room for the rules still to come, so adding one never hits the quota. */
export const MAX_RESPONSE_HEADERS = WAF_RESPONSE_HEADERS_QUOTA / 2;
/** Headers in one custom response. */
export const MAX_HEADERS_PER_RESPONSE = 10;
/** AWS quota: 50 custom response bodies per web ACL or rule group. */
export const MAX_RESPONSE_BODIES = 50;
/** AWS quota: 4 KB of content per custom response body. */
export const MAX_RESPONSE_BODY_BYTES = 4096;

// AWS WAF quotas (custom response headers, bodies and body size):
// https://docs.aws.amazon.com/waf/latest/developerguide/limits.html
export const wafCustomResponseLimits = defineRule({
  id: 'waf-custom-response-limits',
  title: 'WAF custom response headers and bodies stay within the quotas',
  docs: 'https://docs.aws.amazon.com/waf/latest/developerguide/limits.html',
  problems: (stacks) =>
    ruleHolders(stacks).flatMap((holder) => {
      const { stack, logicalId, resource } = holder;
      const at = { stackName: stack.stackName, logicalId };
      const problems: Problem[] = [];
      const responses = customResponsesIn(holder);
      const headerCount = (response: Readonly<Record<string, unknown>>) => (Array.isArray(response.ResponseHeaders) ? response.ResponseHeaders.length : 0);
      const total = responses.reduce((sum, { response }) => sum + headerCount(response), 0);
      if (total > MAX_RESPONSE_HEADERS) {
        problems.push({
          ...at,
          locations: responses.filter(({ response }) => headerCount(response) > 0).map(({ path }) => `${path}/ResponseHeaders`),
          problem: `${total} custom response headers in all its custom responses together, above the ${MAX_RESPONSE_HEADERS} this project allows (AWS quota ${WAF_RESPONSE_HEADERS_QUOTA}; half kept free for rules to come)`,
          fix: 'Drop headers the client does not need from the custom responses (managed-rule overrides repeat them on every blocking rule), or answer fewer rules with a custom response.',
        });
      }
      for (const { response, path } of responses) {
        const count = headerCount(response);
        if (count > MAX_HEADERS_PER_RESPONSE) {
          problems.push({ ...at, locations: [`${path}/ResponseHeaders`], problem: `${count} headers in one custom response, above ${MAX_HEADERS_PER_RESPONSE}`, fix: 'Send at most 10 headers per custom response.' });
        }
      }
      const bodies = isObject(resource.Properties?.CustomResponseBodies) ? Object.entries(resource.Properties.CustomResponseBodies) : [];
      if (bodies.length > MAX_RESPONSE_BODIES) {
        problems.push({ ...at, locations: ['Properties/CustomResponseBodies'], problem: `${bodies.length} custom response bodies, above the quota of ${MAX_RESPONSE_BODIES}`, fix: 'Share bodies between rules that answer alike.' });
      }
      for (const [key, body] of bodies) {
        const content = isObject(body) && typeof body.Content === 'string' ? body.Content : '';
        const bytes = Buffer.byteLength(content, 'utf8');
        if (bytes > MAX_RESPONSE_BODY_BYTES) {
          problems.push({
            ...at,
            locations: [`Properties/CustomResponseBodies/${key}/Content`],
            problem: `custom response body ${key} holds ${bytes} bytes, above ${MAX_RESPONSE_BODY_BYTES} (4 KB)`,
            fix: 'Shorten the body: the client needs the error code and a short message, not the documentation.',
          });
        }
      }
      return problems;
    }),
});
