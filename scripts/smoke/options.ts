/**
 * The smoke suite's command line: what to check and how far. Refuses, before
 * any request, what would make the run meaningless or unsafe: a base URL that
 * is not the spec's `…/v1`, a key sent over plain HTTP to anything but this
 * machine, a key that is not a live key at all.
 */
import { parseArgs } from 'node:util';
import { LIVE_KEY_PATTERN } from '../../lambdas/shared/identity/api-keys';

export interface SmokeOptions {
  /** The partner API's base URL, ending with the version segment (`…/v1`), no trailing slash. */
  readonly baseUrl: string;
  readonly key: string;
  /** The organization the key should be bound to (compared with /me's partner_id; the records page's organization). */
  readonly partnerId?: string;
  /** The web side's base URL (`WebBaseUrl`; on the local stack the same as the base URL). */
  readonly webBaseUrl?: string;
  /** Run the edge checks that spend the caller's edge budget (a burst to 429) and probe the managed rules. */
  readonly checkWaf: boolean;
  /**
   * Whether WAF answers at the edge (a deployment, anywhere but this machine), or the local front stands in
   * for it (a loopback base URL: no managed rule groups, its edge guard's 429s instead of WAF's).
   */
  readonly wafInFront: boolean;
  /** Per request. */
  readonly timeoutMs: number;
  /** How long a burst may take to meet WAF's 429 (WAF detects a rate with a delay of up to a minute or so). */
  readonly burstDeadlineMs: number;
  /** Requests per second of a burst: well above every WAF minute limit (180 and 60 per minute). */
  readonly burstRate: number;
}

export const SMOKE_KEY_VARIABLE = 'SMOKE_API_KEY';

export const USAGE = `Usage: npm run smoke -- --base-url URL --key KEY [--partner-id ID] [--web-base-url URL] [--check-waf] [--timeout SECONDS]

Read-only checks of a deployment of the partner API (a stage in AWS or the local stack).

  --base-url URL       the partner API's base URL, ending with /v1 (stack output ApiBaseUrl; locally http://127.0.0.1:3000/v1)
  --key KEY            an API key of the stage (or the ${SMOKE_KEY_VARIABLE} environment variable, which keeps it out of the
                       shell history); an organization key with records:read also checks a records page
  --partner-id ID      the organization the key must be bound to (default: the key's own, from GET /me)
  --web-base-url URL   also check the web side (stack output WebBaseUrl; locally the same as --base-url)
  --check-waf          also check the edge: a managed rule's block (AWS only) and a burst until the edge answers 429.
                       Spends this address's edge budget: for about a minute afterwards its requests to the API
                       (and the web side) are refused with 429. Never run it from an address that serves traffic.
  --timeout SECONDS    per request (default 10)

Exit status: 0 when every check passed (skipped ones included), 1 when one failed, 2 on a usage error.`;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Whether a URL's host is this machine: no network in between, so plain HTTP cannot leak the key. */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

function baseUrlOption(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag} ${JSON.stringify(value)} is not a URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(value))) {
    throw new UsageError(`${flag} must be an https:// URL (plain http:// only for this machine): the API accepts only HTTPS, and the key must not cross a network in clear`);
  }
  if (url.search || url.hash || url.username || url.password) throw new UsageError(`${flag} must have no query, fragment or credentials`);
  const base = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  if (!base.endsWith('/v1')) throw new UsageError(`${flag} must end with the version segment /v1 (e.g. https://abc123.execute-api.eu-west-1.amazonaws.com/v1)`);
  return base;
}

/** Milliseconds from a number of seconds given on the command line, or the default number of seconds. */
function secondsOption(flag: string, value: string | undefined, defaultSeconds: number): number {
  if (value === undefined) return defaultSeconds * 1000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`${flag} must be a positive number of seconds`);
  return seconds * 1000;
}

/** The options of a run, or `help`. Throws UsageError with a message for the user. */
export function parseSmokeArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): SmokeOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        'base-url': { type: 'string' },
        key: { type: 'string' },
        'partner-id': { type: 'string' },
        'web-base-url': { type: 'string' },
        'check-waf': { type: 'boolean', default: false },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  const baseUrl = baseUrlOption('--base-url', values['base-url']);
  if (!baseUrl) throw new UsageError('--base-url is required');
  const key = values.key ?? env[SMOKE_KEY_VARIABLE];
  if (!key) throw new UsageError(`--key (or ${SMOKE_KEY_VARIABLE}) is required`);
  if (!LIVE_KEY_PATTERN.test(key)) throw new UsageError('the key must be a live key: pak_live_ followed by 64 lowercase hex characters');
  const partnerId = values['partner-id'];
  if (partnerId !== undefined && partnerId.trim() === '') throw new UsageError('--partner-id must not be empty');
  return {
    baseUrl,
    key,
    ...(partnerId ? { partnerId } : {}),
    ...(values['web-base-url'] ? { webBaseUrl: baseUrlOption('--web-base-url', values['web-base-url']) } : {}),
    checkWaf: values['check-waf'],
    wafInFront: !isLoopback(baseUrl),
    timeoutMs: secondsOption('--timeout', values.timeout, 10),
    burstDeadlineMs: 150_000,
    burstRate: 10,
  };
}

/** The key as printed: its prefix and last four characters, never the whole value. */
export const maskedKey = (key: string) => `${key.slice(0, 13)}…${key.slice(-4)}`;
