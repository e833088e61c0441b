/**
 * WAF logging: what a logging configuration may redact. CloudFormation's schema takes any
 * FieldToMatch in `RedactedFields` (JsonBody, Cookies, Headers, …) and any number of them; WAF
 * redacts only UriPath, QueryString, SingleHeader and Method, at most 100 fields, and matches a
 * SingleHeader by its lowercase name. A field it cannot redact is refused at deploy time, or worse,
 * a header name it never matches leaves the credential in the logs.
 */
import { defineRule, isObject, resourcesOf, type Problem } from './rule';

export const LOGGING_CONFIGURATION = 'AWS::WAFv2::LoggingConfiguration';
/** LoggingConfiguration.RedactedFields: at most this many fields. */
export const MAX_REDACTED_FIELDS = 100;
/** The only FieldToMatch types WAF redacts in logs. */
export const REDACTABLE_FIELDS: readonly string[] = ['UriPath', 'QueryString', 'SingleHeader', 'Method'];

// LoggingConfiguration.RedactedFields (the fields WAF can redact, at most 100):
// https://docs.aws.amazon.com/waf/latest/APIReference/API_LoggingConfiguration.html
export const wafLoggingRedaction = defineRule({
  id: 'waf-logging-redaction',
  title: 'WAF logs redact only fields WAF can redact, at most 100, headers by their lowercase names',
  docs: 'https://docs.aws.amazon.com/waf/latest/APIReference/API_LoggingConfiguration.html',
  problems: (stacks) =>
    resourcesOf(stacks, LOGGING_CONFIGURATION).flatMap(({ stack, logicalId, resource }): Problem[] => {
      const fields = resource.Properties?.RedactedFields;
      if (!Array.isArray(fields)) return [];
      const problems: Problem[] = [];
      const add = (path: string, problem: string, fix: string) => problems.push({ stackName: stack.stackName, logicalId, locations: [path], problem, fix });
      if (fields.length > MAX_REDACTED_FIELDS) {
        add('Properties/RedactedFields', `${fields.length} redacted fields, above ${MAX_REDACTED_FIELDS}`, 'Redact the query string as a whole instead of many parameters, and only headers the code reads credentials from.');
      }
      const seen = new Set<string>();
      fields.forEach((field: unknown, i) => {
        const path = `Properties/RedactedFields/${i}`;
        const types = isObject(field) ? Object.keys(field) : [];
        if (types.length !== 1 || !REDACTABLE_FIELDS.includes(types[0])) {
          add(path, `redacted field ${JSON.stringify(field)} is not exactly one of ${REDACTABLE_FIELDS.join(', ')}`, 'Redact a header with SingleHeader, cookies with the `cookie` header, bodies not at all (WAF logs no body).');
          return;
        }
        const single = isObject(field) && isObject(field.SingleHeader) ? field.SingleHeader : undefined;
        const name = single?.Name;
        if (types[0] === 'SingleHeader' && (typeof name !== 'string' || name.length === 0 || name !== name.toLowerCase())) {
          add(`${path}/SingleHeader/Name`, `header name ${JSON.stringify(name)} is not a lowercase name`, 'Write the header name in lowercase, as WAF matches it.');
        }
        const key = JSON.stringify(field);
        if (seen.has(key)) add(path, `${key} is redacted twice`, 'List each field once.');
        seen.add(key);
      });
      return problems;
    }),
});
