/**
 * What never reaches a log line, decided in one place (the log formatter
 * applies it to every line, log-formatter.ts):
 *
 * - by field name, whatever the value: Authorization and Cookie headers,
 *   passwords, secrets, tokens, credentials, API keys, two-factor codes
 *   (names compared in snake case: `Set-Cookie`, `setCookie` and
 *   `set_cookie` are one name);
 * - by value, anywhere in a string (messages, error messages and stacks
 *   included): the service's API keys (`pak_live_…`), webhook signing
 *   secrets (`whsec_…`), `Bearer …` credentials, the session and player
 *   cookies' values, `token=` parameters (a join link's fragment), and any
 *   standalone 43-character base64url value, the encoding of every 256-bit
 *   secret the service hands out (join tokens, player credentials, session
 *   tokens);
 * - recursively through objects, arrays, Maps, Sets and errors (message,
 *   stack, cause and own fields), once per object (cycles are cut).
 *
 * Callers still pass facts, not secrets: this is the net under them, and
 * test/unit/observability/redaction-flows.test.ts scans what real flows log.
 */

export const REDACTED = '[REDACTED]';

/** Words that make a field's value secret when its (snake-case) name contains them. */
const SENSITIVE_NAME = /password|passphrase|secret|token|cookie|authorization|credential|api_?key|private_key|plaintext|two_factor_code|session/;
/** Short names that are secret on their own (`key` is an API key's value; `key_id` is not). */
const SENSITIVE_EXACT = new Set(['key', 'otp', 'totp', 'pin']);

const snakeCase = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/-/g, '_').toLowerCase();

/** Field names repeat line after line: each is judged once (a bounded memory, for names built from data). */
const judged = new Map<string, boolean>();
const JUDGED_MAX = 2000;

export function isSensitiveName(name: string): boolean {
  let sensitive = judged.get(name);
  if (sensitive === undefined) {
    const normalized = snakeCase(name);
    sensitive = SENSITIVE_EXACT.has(normalized) || SENSITIVE_NAME.test(normalized);
    if (judged.size < JUDGED_MAX) judged.set(name, sensitive);
  }
  return sensitive;
}

/**
 * Secret values inside text. Groups 1 and 2 are labels kept in front of the
 * redaction (`Bearer `, `settings_session=`), so the line still says what
 * was there.
 */
const SECRET_IN_TEXT =
  /(\bbearer\s+)[^\s"',;]+|((?:settings_session|player_credential|token)=)[^\s"',;&#]+|pak_[a-z]+_[0-9a-z]{16,}|whsec_[0-9a-z]{8,}|(?<![0-9a-z_-])[0-9a-z_-]{43}(?![0-9a-z_-])/gi;

/** What every secret form but the bare 43-character one contains: a quick test that clears most strings (ids, addresses). */
const LABELLED_SECRET = /bearer|pak_|whsec_|=/i;
/** No secret form is shorter (`Bearer x`). */
const SHORTEST_SECRET = 8;
const BARE_TOKEN_LENGTH = 43;

/** `text` with every secret-looking value replaced. */
export function scrubText(text: string): string {
  if (text.length < SHORTEST_SECRET) return text;
  if (text.length < BARE_TOKEN_LENGTH && !LABELLED_SECRET.test(text)) return text;
  SECRET_IN_TEXT.lastIndex = 0;
  if (!SECRET_IN_TEXT.test(text)) return text;
  return text.replace(SECRET_IN_TEXT, (_match, bearer?: string, label?: string) => `${bearer ?? label ?? ''}${REDACTED}`);
}

/** An error as a plain object: the formatter's shape (log-formatter.ts), else name, message, stack, cause and own fields. */
export type ErrorShape = (error: Error) => Record<string, unknown>;

export const plainError: ErrorShape = (error) => {
  const shape: Record<string, unknown> = { name: error.name, message: error.message, stack: error.stack };
  if (error.cause !== undefined) shape.cause = error.cause;
  for (const [name, value] of Object.entries(error)) if (!(name in shape)) shape[name] = value;
  return shape;
};

/** Objects nested deeper than this are summarized: a log line is not a dump. */
const MAX_DEPTH = 8;

/** A copy of `value` fit for a log line: secrets replaced (see the module header), errors as plain objects. */
export function redact(value: unknown, errorShape: ErrorShape = plainError): unknown {
  return redactValue(value, errorShape, 0, new WeakSet());
}

/** A log line's fields, redacted as `redact` does, written into `target` (no intermediate copy; undefined fields left out). */
export function redactFieldsInto(target: Record<string, unknown>, fields: Readonly<Record<string, unknown>>, errorShape: ErrorShape = plainError): void {
  const seen = new WeakSet<object>([fields]);
  for (const name of Object.keys(fields)) {
    const field = fields[name];
    if (field === undefined) continue;
    target[name] = field !== null && field !== '' && isSensitiveName(name) ? REDACTED : redactValue(field, errorShape, 1, seen);
  }
}

function redactValue(value: unknown, errorShape: ErrorShape, depth: number, seen: WeakSet<object>): unknown {
  switch (typeof value) {
    case 'string':
      return scrubText(value);
    case 'bigint':
      return value.toString();
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      break;
    default:
      return value;
  }
  if (value === null) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`;
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? '[Array]' : '[Object]';
  seen.add(value);
  const next = (item: unknown) => redactValue(item, errorShape, depth + 1, seen);
  if (Array.isArray(value)) return value.map(next);
  if (value instanceof Set) return [...value].map(next);
  const entries = value instanceof Map ? [...value].map(([k, v]) => [String(k), v] as const) : Object.entries(value instanceof Error ? errorShape(value) : value);
  const copy: Record<string, unknown> = {};
  for (const [name, field] of entries) {
    copy[name] = field !== undefined && field !== null && field !== '' && isSensitiveName(name) ? REDACTED : next(field);
  }
  return copy;
}
