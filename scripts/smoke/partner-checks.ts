/**
 * The partner API's read-only checks: health, the key's identity with its
 * rate-limit headers, every authentication outcome, the 404 and 422 answers
 * the spec names for what no route offers, a key in the URL refused, and a
 * records page followed through its cursor. Nothing here writes business
 * data; each request counts toward quotas like any call (about five of the
 * key's 60 per minute).
 */
import { createPartnerClient } from '../../client/src';
import { generateApiKey } from '../../lambdas/shared/identity/api-keys';
import { EDGE_REQUEST_ID } from '../../lib/constructs/error-envelope';
import { pass, skip, type SmokeCheck, type SmokeContext } from './check';
import { errorProblems, failOn, rateLimitHeaderProblems, successProblems } from './expectations';
import { compareRecords, recordPageProblems } from './record-page';

/** Records per page of the records check: small, and two pages show the cursor. */
export const RECORDS_PAGE_LIMIT = 2;

/** Who answered an error: WAF's custom responses carry the request id `edge`. */
const answeredBy = (requestId: string | null) => (requestId === EDGE_REQUEST_ID ? 'answered by WAF' : 'answered by the service');

/** An error check: one request, one code, in the envelope. */
function refusal(name: string, code: string, send: (context: SmokeContext) => ReturnType<SmokeContext['partner']>): SmokeCheck {
  return {
    name,
    async run(context) {
      const answer = await send(context);
      failOn(errorProblems(answer, code, 'envelope'));
      return pass(`${answer.status} ${code}, ${answeredBy(answer.headers.get('x-request-id'))}`);
    },
  };
}

const health: SmokeCheck = {
  name: 'GET /health',
  async run(context) {
    const { problems, data } = successProblems(await context.partner('/health'));
    if (data.status !== 'ok') problems.push(`data.status is ${JSON.stringify(data.status)}, not "ok"`);
    if (data.version !== 'v1') problems.push(`data.version is ${JSON.stringify(data.version)}, not "v1"`);
    failOn(problems);
    return pass('200, status ok, version v1');
  },
};

const identity: SmokeCheck = {
  name: 'GET /me with the key',
  async run(context) {
    const answer = await context.partner('/me', { authorization: true });
    const { problems, data } = successProblems(answer);
    const scopes = Array.isArray(data.scopes) && data.scopes.every((s) => typeof s === 'string') ? (data.scopes as string[]) : undefined;
    for (const field of ['key_id', 'account_id']) if (typeof data[field] !== 'string') problems.push(`data.${field} is not a string`);
    if (!scopes) problems.push('data.scopes is not an array of strings');
    if (data.expires_at !== null && (typeof data.expires_at !== 'string' || Number.isNaN(Date.parse(data.expires_at)))) {
      problems.push(`data.expires_at ${JSON.stringify(data.expires_at)} is neither an ISO 8601 time nor null`);
    }
    const partnerId = typeof data.partner_id === 'string' ? data.partner_id : undefined;
    if (answer.status === 200 && scopes) context.identity = { partnerId, scopes };
    const expected = context.options.partnerId;
    // The spec's start-up check: compare /me's partner_id with the configuration.
    if (expected && partnerId !== expected) problems.push(`the key is bound to ${partnerId ?? 'no organization (a personal key)'}, not --partner-id ${expected}`);
    problems.push(...rateLimitHeaderProblems(answer));
    failOn(problems);
    const headers = answer.headers;
    return pass(
      `key ${String(data.key_id)}, ${partnerId ? `organization ${partnerId}` : 'personal key'}, scopes ${scopes!.join(' ')}; ` +
        `${headers.get('x-ratelimit-policy')} ${headers.get('x-ratelimit-remaining')}/${headers.get('x-ratelimit-limit')} left`,
    );
  },
};

const recordsPage: SmokeCheck = {
  name: 'records page and its cursor',
  async run(context) {
    const known = context.identity;
    const partnerId = context.options.partnerId ?? known?.partnerId;
    if (!partnerId) {
      return skip(known ? 'a personal key has no organization records: use an organization key with records:read' : 'GET /me failed, so the key’s organization is unknown (or give --partner-id)');
    }
    if (known && known.partnerId !== partnerId) return skip(`the key is not bound to ${partnerId} (see GET /me)`);
    if (known && !known.scopes.includes('records:read')) return skip('the key lacks records:read');
    const path = `/partners/${encodeURIComponent(partnerId)}/records?limit=${RECORDS_PAGE_LIMIT}`;
    const first = recordPageProblems(await context.partner(path, { authorization: true }), RECORDS_PAGE_LIMIT);
    failOn(first.problems);
    if (first.nextCursor === null) return pass(`${first.items.length} record(s) of ${partnerId}, one page (next_cursor null)`);

    const second = recordPageProblems(
      await context.partner(`${path}&cursor=${encodeURIComponent(first.nextCursor)}`, { authorization: true }),
      RECORDS_PAGE_LIMIT,
    );
    const last = first.items.at(-1);
    const problems = [...second.problems];
    if (last && second.items[0] && compareRecords(last, second.items[0]) >= 0) {
      problems.push(`the page after next_cursor starts with ${second.items[0].id}, which does not come after ${last.id}, the previous page's last record`);
    }
    failOn(problems);
    return pass(`${first.items.length} + ${second.items.length} records of ${partnerId} through next_cursor, in order`);
  },
};

/**
 * The typed client (client/), as an integration would call the stage: /me, then the organization's records through
 * its cursor iterator (at most two pages of RECORDS_PAGE_LIMIT), every failure a PartnerApiError with its code.
 */
const typedClient: SmokeCheck = {
  name: 'the typed client (@partner-api/client): me() and iterateRecords()',
  async run(context) {
    const client = createPartnerClient({ baseUrl: context.options.baseUrl, apiKey: context.options.key, deadlineMs: context.options.timeoutMs });
    const me = await client.me();
    const partnerId = context.options.partnerId ?? me.data.partner_id ?? undefined;
    if (!partnerId || !me.data.scopes.includes('records:read')) return pass(`me(): key ${me.data.key_id} (no organization records to page: the records part is skipped)`);
    let count = 0;
    for await (const record of client.iterateRecords(partnerId, { limit: RECORDS_PAGE_LIMIT })) {
      if (typeof record.id !== 'string') failOn([`a record without an id: ${JSON.stringify(record)}`]);
      if ((count += 1) >= RECORDS_PAGE_LIMIT * 2) break;
    }
    return pass(`me(): key ${me.data.key_id}; iterateRecords(): ${count} records of ${partnerId}`);
  },
};

/** In the order they run: GET /me first, the records page needs what it learnt. */
export const PARTNER_CHECKS: readonly SmokeCheck[] = [
  health,
  identity,
  refusal('GET /me without a key', 'INVALID_API_KEY', (c) => c.partner('/me')),
  refusal('GET /me with a malformed key', 'INVALID_API_KEY', (c) => c.partner('/me', { authorization: 'Bearer smoke-malformed-key' })),
  refusal('GET /me with an unknown well-formed key', 'INVALID_API_KEY', (c) => c.partner('/me', { authorization: `Bearer ${generateApiKey()}` })),
  refusal('GET an unknown route', 'NOT_FOUND', (c) => c.partner('/smoke-unknown-route')),
  refusal('DELETE /health (method not offered)', 'NOT_FOUND', (c) => c.partner('/health', { method: 'DELETE' })),
  refusal('GET /health?smoke=1 (unknown parameter)', 'UNKNOWN_PARAMETER', (c) => c.partner('/health?smoke=1')),
  // A credential-named parameter with a dummy value: the run's key never goes into a URL.
  refusal('GET /health?api_key=… (key in the URL)', 'CREDENTIALS_IN_URL', (c) => c.partner('/health?api_key=smoke-not-a-key')),
  recordsPage,
  typedClient,
];
