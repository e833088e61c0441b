/**
 * A crowd of account holders creating keys in web settings at once (issue 33): 6 accounts × 4 keys, every
 * `POST /settings/api/keys` sent at the same moment through the local front, each from a session of its own, each
 * checking a password hashed at the production cost (scrypt, 128 MiB, about half a second of a core). Each client
 * behaves as the settings page does: a refusal with Retry-After (503 PASSWORD_CHECK_BUSY from the password gate,
 * lambdas/back-office/password-gate.ts; a 429 or admission's 503 RATE_LIMIT_UNAVAILABLE would be treated the same) is
 * sent again after it, with the same Idempotency-Key, until the key is created (201, or 200 for an attempt that had
 * created it). Any other 5xx (the front's 502 at the function timeout, the deadline's 503 SERVICE_UNAVAILABLE) ends
 * that client's run and counts as `other 5xx`.
 *
 * Reported: every answer by status (and code), the first answers apart, 5xx other than such declared refusals (the
 * run fails unless 0), the median and p95 of the answers' latency, of the first answer and of the time until the key
 * was created, and the gate's capacity and refusals. The local stack's own gate (the process's capacity: its threads
 * and cores), the bench platform's quotas raised out of reach (bench/platform.ts), so only the password checks limit.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { hashPassword, passwordGate, PRODUCTION_PASSWORD_COST } from '../../lambdas/back-office/passwords';
import { signInKey } from '../../lambdas/back-office/sign-in-items';
import { localDocumentClient } from '../../local/local-stack';
import { defineScenario, type BenchContext, type SettingsLoadRow } from '../scenario';
import { percentile, round } from '../stats';

const SCENARIO = 'settings-load';
const ACCOUNTS = 6;
const KEYS_PER_ACCOUNT = 4;
const PASSWORD = 'bench settings load password';
/** Attempts per request before the run gives up on it (each after the previous answer's Retry-After). */
const MOST_ATTEMPTS = 30;

interface Client {
  readonly cookie: string;
  readonly idempotencyKey: string;
  readonly name: string;
}

interface Attempt {
  readonly status: number;
  readonly code?: string;
  readonly retryAfter: number;
  readonly ms: number;
}

/** The accounts (their password at the production cost) and one session per request, opened in the back office. */
async function prepare(context: BenchContext): Promise<Client[]> {
  const client = localDocumentClient(context.stack.dynamoEndpoint);
  try {
    const office = createBackOffice(client, context.stack.tables.access);
    // One stored hash for every account: the requests verify at the production cost, the setup hashes once.
    const stored = await hashPassword(PASSWORD, PRODUCTION_PASSWORD_COST);
    const clients: Client[] = [];
    for (let a = 0; a < ACCOUNTS; a += 1) {
      const { account_id } = await office.accounts.create(`Bench load ${a}`, { email: `bench-load-${a}-${Date.now()}@example.com` });
      await client.send(
        new UpdateCommand({
          TableName: context.stack.tables.access,
          Key: signInKey(account_id),
          UpdateExpression: 'SET password_hash = :hash',
          ExpressionAttributeValues: { ':hash': stored },
        }),
      );
      for (let k = 0; k < KEYS_PER_ACCOUNT; k += 1) {
        const { token } = await office.sessions.open(account_id);
        clients.push({ cookie: `settings_session=${token}`, idempotencyKey: randomBytes(18).toString('hex'), name: `load ${a}.${k}` });
      }
    }
    return clients;
  } finally {
    client.destroy();
  }
}

async function attempt(baseUrl: string, client: Client): Promise<Attempt> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/settings/api/keys`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Origin: new URL(baseUrl).origin,
      'X-Settings-Request': '1',
      Cookie: client.cookie,
      'Idempotency-Key': client.idempotencyKey,
    },
    body: JSON.stringify({ name: client.name, password: PASSWORD, scopes: ['public:read'] }),
  });
  const body = (await response.json().catch(() => ({}))) as { code?: string };
  const ms = performance.now() - started;
  return { status: response.status, code: response.ok ? undefined : body.code, retryAfter: Number(response.headers.get('retry-after')), ms };
}

/** 503s that refuse a request before its work, saying when to retry: the password gate's, and admission's store slow to answer. */
const REFUSALS_503 = ['PASSWORD_CHECK_BUSY', 'RATE_LIMIT_UNAVAILABLE'];

/** A refusal sent again after its Retry-After: a 429, or a 503 of REFUSALS_503 (never the deadline's SERVICE_UNAVAILABLE). */
const isDeclaredRefusal = (a: Attempt) =>
  (a.status === 429 || (a.status === 503 && REFUSALS_503.includes(a.code ?? ''))) && Number.isInteger(a.retryAfter) && a.retryAfter >= 1;

/** One client's request, sent again after each declared refusal until it is answered for good: its attempts and its time. */
async function createKey(baseUrl: string, client: Client): Promise<{ attempts: Attempt[]; createdMs?: number }> {
  const started = performance.now();
  const attempts: Attempt[] = [];
  for (let i = 0; i < MOST_ATTEMPTS; i += 1) {
    const answer = await attempt(baseUrl, client);
    attempts.push(answer);
    if (answer.status === 200 || answer.status === 201) return { attempts, createdMs: performance.now() - started };
    if (!isDeclaredRefusal(answer)) return { attempts };
    await new Promise((resolve) => setTimeout(resolve, answer.retryAfter * 1000));
  }
  return { attempts };
}

const label = (a: Attempt) => (a.code ? `${a.status} ${a.code}` : String(a.status));
const countBy = (labels: readonly string[]) => labels.reduce<Record<string, number>>((counts, l) => ({ ...counts, [l]: (counts[l] ?? 0) + 1 }), {});
const summary = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? { p50_ms: 0, p95_ms: 0, max_ms: 0 } : { p50_ms: round(percentile(sorted, 0.5), 1), p95_ms: round(percentile(sorted, 0.95), 1), max_ms: round(sorted[sorted.length - 1], 1) };
};

export const settingsLoad = defineScenario<Client[]>({
  name: SCENARIO,
  description: `${ACCOUNTS * KEYS_PER_ACCOUNT} key creations at once (${ACCOUNTS} accounts × ${KEYS_PER_ACCOUNT}, production password cost), refusals retried after Retry-After as the page does`,
  setup: prepare,
  run: async (context, clients) => {
    context.progress(`${clients.length} POST /settings/api/keys at once`);
    const gate = passwordGate().figures();
    const started = performance.now();
    const results = await Promise.all(clients.map((client) => createKey(context.stack.baseUrl, client)));
    const elapsedMs = performance.now() - started;
    const attempts = results.flatMap((r) => r.attempts);
    const row: SettingsLoadRow = {
      kind: 'settings-load',
      scenario: SCENARIO,
      accounts: ACCOUNTS,
      requests: clients.length,
      gate_capacity: gate.capacity,
      gate_refusals: passwordGate().figures().refused - gate.refused,
      first_answers: countBy(results.map((r) => label(r.attempts[0]))),
      answers: countBy(attempts.map(label)),
      unexpected_5xx: attempts.filter((a) => a.status >= 500 && !isDeclaredRefusal(a)).length,
      created: results.filter((r) => r.createdMs !== undefined).length,
      answer_latency: summary(attempts.map((a) => a.ms)),
      first_answer_latency: summary(results.map((r) => r.attempts[0].ms)),
      time_to_created: summary(results.flatMap((r) => (r.createdMs === undefined ? [] : [r.createdMs]))),
      elapsed_ms: round(elapsedMs, 0),
    };
    return [row];
  },
});
