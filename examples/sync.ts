/**
 * `npm run example:sync`: a partner integration in a few lines, with the typed client (client/), against a running
 * stack (default: `npm start` on this machine):
 *   1. check the key (/me) and its organization, as the spec asks at start-up;
 *   2. sync the organization's records changed since the last run (a watermark kept in .local/example-sync.json);
 *   3. create a player invitation (the Idempotency-Key kept, so a retry never creates a second one) and print its link.
 *
 *   PARTNER_API_KEY=pak_live_… [PARTNER_API_BASE_URL=http://127.0.0.1:3000/v1] npm run example:sync
 *
 * Webhooks: run kit/webhook-receiver/sample-receiver.ts (built on the same package's verifyWebhook) on the callback's
 * URL; its README says how.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createPartnerClient, PartnerApiError } from '../client/src';

const STATE = '.local/example-sync.json';
const apiKey = process.env.PARTNER_API_KEY;
if (!apiKey) {
  console.error('Set PARTNER_API_KEY to an organization key (npm start prints the demo keys).');
  process.exit(2);
}
const client = createPartnerClient({ baseUrl: process.env.PARTNER_API_BASE_URL ?? 'http://127.0.0.1:3000/v1', apiKey });
const state = (() => {
  try {
    return JSON.parse(readFileSync(STATE, 'utf8')) as { since?: string };
  } catch {
    return {};
  }
})();

try {
  const { data: me } = await client.me();
  if (!me.partner_id) throw new Error('This example needs an organization key, not a personal one.');
  console.log(`key ${me.key_id} of ${me.partner_id}, scopes ${me.scopes.join(' ')}`);

  const { records, watermark } = await client.records.sync(me.partner_id, { since: state.since });
  console.log(`${records.length} records changed since ${state.since ?? 'the beginning'}`);
  for (const record of records.slice(0, 5)) console.log(`  ${record.updated_at} ${record.uuid} ${record.result}`);
  mkdirSync(dirname(STATE), { recursive: true });
  writeFileSync(STATE, JSON.stringify({ since: watermark ?? state.since }));

  if (me.scopes.includes('invitations:write')) {
    const created = await client.createInvitation(me.partner_id, { game: 'minecraft', notes: 'Created by examples/sync.ts' });
    console.log(`invitation ${created.data.id} (Idempotency-Key ${created.idempotencyKey}): ${created.data.link}`);
  }
} catch (error) {
  if (error instanceof PartnerApiError) {
    const limit = error.rateLimit.policy ? `; policy ${error.rateLimit.policy}, retry after ${error.retryAfter ?? '?'} s` : '';
    console.error(`${error.status} ${error.code}: ${error.message} (request ${error.requestId ?? 'unknown'}${limit})`);
  }
  else console.error(error);
  process.exit(1);
}
