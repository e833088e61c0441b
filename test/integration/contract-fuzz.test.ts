/**
 * Every operation of both OpenAPI documents (docs/openapi.json, docs/settings-openapi.json), fuzzed through the local
 * front with generated valid and invalid inputs: path parameters (known ids and garbage), query parameters (declared
 * ones with valid and invalid values, unknown and repeated ones), bodies (valid-looking, wrong types, unknown fields,
 * control characters, not JSON, none), credentials (a key with every scope, none, garbage; a signed-in browser, none,
 * without its page's headers), and now and then, on web settings' operations, a method Node's parser refuses (a
 * lower-case or unknown one, which fetch() sends as written): answered by the front, still in web settings' shape.
 * Every answer goes through the document check of `stack.call` (test/support/contract-check.ts: declared status, body
 * matching its schema, the settings shape on a settings path); none may be a 5xx.
 *
 * The generator is seeded: the seed is printed, and `CONTRACT_FUZZ_SEED=<n>` replays a run. Quotas are raised out of
 * reach (their own tests count them), so the requests reach the operations.
 *
 * `npm test` sends 32 requests per operation (1,120 in all); `CONTRACT_FUZZ_REQUESTS=<n>` sends n per operation (64,
 * the count before, or more for a longer run). Each request costs what its operation costs (the admission, the reads
 * and writes on DynamoDB Local: about 30 ms of CPU between this process and DynamoDB Local), so the count is what the
 * file costs; what was waste besides (requests that found the browser signed out each signing in) is cut: they wait
 * for the sign-in under way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestApiKey, keyIdFromDigest } from '../../lambdas/shared/identity/api-keys';
import { ContractViolation } from '../support/contract-check';
import { raisedHandlers } from '../support/raised-quotas';
import { recordInput } from '../support/record-input';
import { SettingsBrowser } from '../support/settings-browser';
import { bearer, startTestStack, type TestStack } from '../support/test-stack';
import { followRef } from '../support/openapi-refs';

const SEED = Number(process.env.CONTRACT_FUZZ_SEED ?? 20261127);
const REQUESTS_PER_OPERATION = Number(process.env.CONTRACT_FUZZ_REQUESTS ?? 32);
if (!Number.isInteger(REQUESTS_PER_OPERATION) || REQUESTS_PER_OPERATION < 1) throw new Error('CONTRACT_FUZZ_REQUESTS: a whole number of requests per operation');
const CONCURRENCY = 4;

type Json = Record<string, any>;

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    chance: (p: number) => next() < p,
    pick: <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
  };
}

interface Operation {
  readonly method: string;
  readonly template: string;
  readonly surface: 'partner' | 'settings';
  readonly query: readonly { name: string; schema: Json }[];
  readonly body?: Json;
}

const operations: Operation[] = [
  ['partner', 'docs/openapi.json'],
  ['settings', 'docs/settings-openapi.json'],
].flatMap(([surface, file]) => {
  const document = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', file), 'utf8')) as Json;
  return Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      template,
      surface: surface as Operation['surface'],
      query: ((op.parameters ?? []) as Json[])
        // A parameter the document names once (components.parameters) is read where it is declared.
        .map((p) => followRef(document, p).value)
        .filter((p) => p.in === 'query')
        .map((p) => ({ name: p.name as string, schema: p.schema as Json })),
      body: op.requestBody?.content?.['application/json']?.schema as Json | undefined,
    })),
  );
});

/** Methods Node's parser refuses that fetch() sends as written (it upper-cases only DELETE, GET, HEAD, OPTIONS, POST and PUT). */
const REFUSED_METHODS = ['patch', 'Patch', 'FETCH', 'brew'];

const GARBAGE = ['x', '0', '-1', '', ' ', 'a'.repeat(300), 'null', '%00', '%E2%80%AE', '%F0%9F%92%A5', '00000000-0000-4000-8000-000000000000', 'org_0000', '😀', '\u0000', '<script>', "' OR 1=1 --"];
const ODD_VALUES: unknown[] = [null, true, false, 0, -1, 1.5, 1e21, '', ' ', 'x', 'x'.repeat(5000), 'ab\u0000cd', '\u202e', [], ['x'], {}, { a: 1 }];

const PASSWORD = 'fuzzing password 1234';
let stack: TestStack;
let browser: SettingsBrowser;
let email: string;
let password = PASSWORD;
/** The browser's sign-in under way, if any (signInAgain). */
let signingIn: Promise<unknown> | undefined;
const known: Record<string, string[]> = {};
const keys: string[] = [];

/**
 * The browser signed in again after a sign-out (or a password change, a sign-out everywhere): requests that find it
 * signed out while a sign-in is under way wait for that one, as the page's requests would, instead of each signing in
 * (four at once made a session apiece and kept one: more than half of a run's sign-ins).
 */
function signInAgain(): Promise<unknown> {
  return (signingIn ??= browser.signIn(email, password).finally(() => (signingIn = undefined)));
}

/** Values an operation's path parameter is likely to meet: the organization's own ids, or not. */
function pathValue(name: string, r: ReturnType<typeof random>): string {
  if (r.chance(0.65) && known[name]?.length) return r.pick(known[name]);
  return encodeURIComponent(decodeURIComponentSafe(r.pick(GARBAGE))) || 'x';
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function validValue(schema: Json | undefined, r: ReturnType<typeof random>, name = ''): unknown {
  if (!schema) return r.pick(ODD_VALUES);
  if (schema.enum) return r.pick(schema.enum as unknown[]);
  if (schema.const !== undefined) return schema.const;
  if (schema.anyOf) return validValue(r.pick(schema.anyOf as Json[]), r, name);
  const type = Array.isArray(schema.type) ? r.pick(schema.type as string[]) : schema.type;
  if (name.includes('password')) return r.chance(0.6) ? password : 'wrong password 123';
  if (name === 'partner_id') return r.pick(known.partner_id);
  if (name === 'url') return r.pick(['https://127.0.0.1:9/hook', 'http://example.com/hook', 'https://example.com/hook', 'not a url']);
  if (name === 'email') return r.chance(0.7) ? email : 'nobody@example.com';
  if (name === 'scopes') return r.chance(0.8) ? [r.pick(['records:read', 'public:read', 'invitations:write', 'entitlements:read'])] : ['nope'];
  if (name.endsWith('code')) return r.pick(['000000', '123456', 'abcdef', '']);
  switch (type) {
    case 'integer':
      return r.int(schema.minimum ?? 0, Math.min(schema.maximum ?? 1000, (schema.minimum ?? 0) + 1000));
    case 'number':
      return r.next() * 100;
    case 'boolean':
      return r.chance(0.5);
    case 'array':
      return [validValue(schema.items as Json, r)];
    case 'null':
      return null;
    case 'string':
      if (schema.format === 'date-time') return new Date(Date.now() - r.int(0, 1e9)).toISOString();
      return r.pick(['Fuzzed name', 'ab', 'Minecraft', 'a'.repeat(r.int(1, 40)), 'line\nbreak']);
    default:
      return r.pick(ODD_VALUES);
  }
}

function queryString(op: Operation, r: ReturnType<typeof random>): string {
  const pairs: [string, string][] = [];
  for (const { name, schema } of op.query) {
    if (!r.chance(0.5)) continue;
    const value = r.chance(0.7) ? validValue(schema, r, name) : r.pick(GARBAGE);
    pairs.push([name, String(value)]);
    if (r.chance(0.05)) pairs.push([name, String(value)]);
  }
  if (r.chance(0.08)) pairs.push([r.pick(['unknown', 'debug', 'api_key', 'sort']), 'x']);
  return pairs.length ? `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}` : '';
}

function body(op: Operation, r: ReturnType<typeof random>): string | undefined {
  // fetch() sends no body with a GET (the raw-socket fuzz, front-fuzz.test.ts, does).
  if (!op.body) return op.method !== 'GET' && r.chance(0.05) ? '{"unexpected":true}' : undefined;
  if (r.chance(0.08)) return r.pick(['{', 'not json', '[]', 'null', '"x"', '{"a":1}{']);
  if (r.chance(0.05)) return undefined;
  const object: Json = {};
  for (const [name, schema] of Object.entries((op.body.properties ?? {}) as Record<string, Json>)) {
    if (!r.chance((op.body.required as string[] | undefined)?.includes(name) ? 0.9 : 0.5)) continue;
    object[name] = r.chance(0.8) ? validValue(schema, r, name) : r.pick(ODD_VALUES);
  }
  if (r.chance(0.08)) object[r.pick(['extra', '__proto__', 'constructor', 'id'])] = 'x';
  return JSON.stringify(object);
}

async function sendOne(op: Operation, r: ReturnType<typeof random>): Promise<{ where: string; status: number }> {
  const path = op.template.replace(/\{([a-z_]+)\}/g, (_, name: string) => pathValue(name, r)) + queryString(op, r);
  const payload = body(op, r);
  const where = `${op.method} ${path}${payload === undefined ? '' : ` ${payload.slice(0, 200)}`}`;
  if (op.surface === 'settings') {
    if (!browser.token && r.chance(0.9)) await signInAgain();
    const withPageHeaders = r.chance(0.9);
    const method = r.chance(0.05) ? r.pick(REFUSED_METHODS) : op.method;
    const response = withPageHeaders
      ? await browser.send(method, path, payload, payload === undefined ? undefined : 'application/json')
      : await stack.call(path, { method, headers: { ...(payload ? { 'Content-Type': 'application/json' } : {}) }, ...(payload ? { body: payload } : {}) });
    if (method !== op.method) {
      await response.arrayBuffer();
      // The front answers it (API Gateway's DEFAULT_4XX): the contract check has seen web settings' shape.
      if (response.status !== 400) throw new Error(`${method} ${path}: ${response.status}, not the front's 400 REQUEST_REJECTED`);
      return { where: `${method} ${path}`, status: response.status };
    }
    if (response.status === 200 && op.template === '/settings/api/password' && payload) {
      const sent = JSON.parse(payload) as { current_password?: unknown; new_password?: unknown };
      if (typeof sent.new_password === 'string') password = sent.new_password;
    }
    return { where, status: response.status };
  }
  const credential = r.chance(0.8) ? bearer(r.pick(keys)) : r.chance(0.5) ? {} : { Authorization: r.pick(['Bearer x', 'Basic abc', `Bearer pak_live_${'0'.repeat(64)}`]) };
  const headers: Record<string, string> = { ...credential, ...(payload !== undefined && r.chance(0.9) ? { 'Content-Type': 'application/json' } : {}) };
  if (op.method === 'POST' && op.template.endsWith('/invitations') && r.chance(0.9)) headers['Idempotency-Key'] = r.chance(0.8) ? `fuzz-${r.int(0, 1e9)}-idempotency` : 'short';
  const response = await stack.call(path, { method: op.method, headers, ...(payload === undefined ? {} : { body: payload }) });
  await response.arrayBuffer();
  return { where, status: response.status };
}

beforeAll(async () => {
  stack = await startTestStack({ handlers: raisedHandlers() });
  // Two managers of one organization: the partner API's calls use the first one's keys; web settings are fuzzed as the
  // second, whose password changes and key revocations (which end every key of that account) leave those keys alone.
  const { account_id } = await stack.office.accounts.create('Integration manager', { email: `fuzz-keys-${Date.now()}@example.com`, password: PASSWORD });
  email = `fuzz-${Date.now()}@example.com`;
  const { account_id: settingsAccount } = await stack.office.accounts.create('Fuzz manager', { email, password: PASSWORD });
  const { partner_id } = await stack.office.organizations.create('Fuzzed organization');
  await stack.office.memberships.set(partner_id, account_id, 'manager');
  await stack.office.memberships.set(partner_id, settingsAccount, 'manager');
  const scopes = ['records:read', 'public:read', 'invitations:read', 'invitations:write', 'entitlements:read'];
  for (let i = 0; i < 3; i += 1) keys.push((await stack.office.keys.create({ accountId: account_id, partnerId: partner_id, scopes })).key);
  for (let i = 0; i < 2; i += 1) await stack.office.keys.create({ accountId: settingsAccount, partnerId: partner_id, scopes: ['public:read'] });
  known.partner_id = [partner_id];
  const records = await Promise.all([1, 2].map(() => stack.office.records!.put(partner_id, recordInput('Fuzz'))));
  known.record_id = records.map((r) => r.id);
  known.uuid = records.map((r) => r.uuid);
  const invitations: string[] = [];
  for (let i = 0; i < 3; i += 1) {
    const created = await stack.call(`/partners/${partner_id}/invitations`, {
      method: 'POST',
      headers: { ...bearer(keys[0]), 'Content-Type': 'application/json', 'Idempotency-Key': `fuzz-seed-invitation-${i}-${Date.now()}` },
      body: JSON.stringify({ game: 'fps' }),
    });
    invitations.push(((await created.json()) as { data: { id: string } }).data.id);
  }
  known.invitation_id = invitations;
  browser = new SettingsBrowser(stack);
  expect((await browser.signIn(email, PASSWORD)).status).toBe(200);
  const keysListed = (await (await browser.get('/settings/api/keys')).json()) as { keys?: { key_id?: string; id?: string }[] };
  // The settings account's keys (the fuzz may revoke them), and one of the other account's (KEY_NOT_FOUND).
  known.key_id = [...(keysListed.keys ?? []).map((k) => k.key_id ?? k.id ?? '').filter(Boolean), keyIdFromDigest(digestApiKey(keys[0]))];
  expect(known.key_id.length).toBe(3);
  known.webhook_id = [];
  known.delivery_id = [];
});
afterAll(() => stack?.stop());

describe('contract fuzz: every operation of both documents', () => {
  it(`answers ${REQUESTS_PER_OPERATION} generated requests per operation inside its document, never with a 5xx`, async () => {
    console.log(`contract fuzz: seed ${SEED} (replay with CONTRACT_FUZZ_SEED=${SEED}), ${operations.length} operations × ${REQUESTS_PER_OPERATION} requests`);
    const r = random(SEED);
    const plan = operations.flatMap((op) => Array.from({ length: REQUESTS_PER_OPERATION }, () => op));
    // Shuffled with the seed, so state one operation changes (a sign-out, a revoke) meets the others in every order.
    for (let i = plan.length - 1; i > 0; i -= 1) {
      const j = Math.floor(r.next() * (i + 1));
      [plan[i], plan[j]] = [plan[j], plan[i]];
    }
    const failures: string[] = [];
    const statuses = new Map<string, number>();
    let next = 0;
    let sent = 0;
    // Each request draws its values before anything is awaited: the same seed sends the same requests.
    const requests = plan.map((op) => ({ op, r: random(Math.floor(r.next() * 2 ** 32)) }));
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length) {
          const { op, r: own } = requests[next++];
          try {
            const { where, status } = await sendOne(op, own);
            sent += 1;
            statuses.set(String(status), (statuses.get(String(status)) ?? 0) + 1);
            if (status >= 500) failures.push(`${where} → ${status}`);
          } catch (error) {
            failures.push(error instanceof ContractViolation ? error.message : `${op.method} ${op.template}: ${String(error)}`);
          }
        }
      }),
    );
    console.log(`contract fuzz: ${sent} requests answered, by status ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    expect(failures.slice(0, 20)).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(Math.floor(requests.length * 0.89));
  }, 600_000);
});
