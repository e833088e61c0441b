/**
 * Screening records through the local front and DynamoDB Local: the public
 * lookup (exact, case-insensitive, public records only, the spec's fields
 * and nothing else), and the outbox: each back-office change writes its event
 * in the same transaction, so a failure between them leaves neither.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { clientFailingEventWrites } from '../support/failing-events';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
let partnerId: string;
let publicKey: string;
let recordsKeyOnly: string;
let orgKeyValue: string;
let managerAccountId: string;

beforeAll(async () => {
  stack = await startTestStack();
  const org = await createOrgWithManagerKey(stack.office, ['public:read', 'records:read']);
  partnerId = org.partner_id;
  orgKeyValue = org.key.key;
  managerAccountId = org.account_id;
  publicKey = (await stack.office.keys.create({ accountId: org.account_id, scopes: ['public:read'] })).key;
  recordsKeyOnly = (await stack.office.keys.create({ accountId: org.account_id, partnerId, scopes: ['records:read'] })).key;
});
afterAll(() => stack?.stop());

let serial = 0;
function recordJson(overrides: Record<string, unknown> = {}) {
  serial += 1;
  return {
    uuid: `USS-${String(20260000 + serial).padStart(8, '0')}-AbCdEf${String(serial).padStart(6, '0')}`,
    player_name: 'Steve',
    game_category: 'Minecraft',
    game: 'Minecraft: Java Edition',
    checked_at: '2026-11-01T10:00:00Z',
    result: 'clean',
    checker_name: 'Alex Checker',
    public_notes: 'No client modifications found.',
    internal_notes: 'INTERNAL: player argued with staff',
    staff_notes: 'STAFF: second opinion pending',
    ...overrides,
  };
}

async function lookup(uuid: string, key = publicKey) {
  const response = await stack.call(`/records/${encodeURIComponent(uuid)}`, { headers: bearer(key) });
  const text = await response.text();
  const body = JSON.parse(text) as { data?: Record<string, unknown>; error?: { code: string } };
  return { status: response.status, code: body.error?.code, data: body.data, text };
}

const records = () => stack.office.records!;

describe('GET /records/{uuid}', () => {
  it('returns the public record, whatever the letter case of the uuid, with exactly the spec\u2019s fields', async () => {
    const input = recordJson();
    const put = await records().put(partnerId, input);
    for (const uuid of [input.uuid, input.uuid.toLowerCase(), input.uuid.toUpperCase()]) {
      const found = await lookup(uuid);
      expect(found.status).toBe(200);
      expect(found.data).toEqual({
        id: put.id,
        uuid: input.uuid,
        player_name: 'Steve',
        game_category: 'Minecraft',
        game: 'Minecraft: Java Edition',
        checked_at: '2026-11-01T10:00:00.000Z',
        result: 'clean',
        result_label: 'Clean',
        checker_name: 'Alex Checker',
        public_notes: 'No client modifications found.',
        updated_at: put.updated_at,
      });
      expect(found.text).not.toMatch(/INTERNAL|STAFF|partner_id|org_/);
    }
  });

  it.each(['USS-1234567-abcdefabcdef', 'XYZ-12345678-abcdefabcdef', 'USS-12345678-abcdefabcde!', 'USS-12345678-abcdefabcdefa', 'nope'])(
    'answers 422 INVALID_RECORD_UUID for %s',
    async (uuid) => {
      expect(await lookup(uuid)).toMatchObject({ status: 422, code: 'INVALID_RECORD_UUID' });
    },
  );

  it('answers 404 RECORD_NOT_FOUND for an unknown uuid, a non-public record and a deleted one', async () => {
    expect(await lookup('USS-99999999-zzzzzzzzzzzz')).toMatchObject({ status: 404, code: 'RECORD_NOT_FOUND' });
    const hidden = recordJson({ public: false });
    await records().put(partnerId, hidden);
    expect(await lookup(hidden.uuid)).toMatchObject({ status: 404, code: 'RECORD_NOT_FOUND' });
    const gone = recordJson();
    const put = await records().put(partnerId, gone);
    expect((await lookup(gone.uuid)).status).toBe(200);
    await records().delete(partnerId, put.id);
    expect(await lookup(gone.uuid)).toMatchObject({ status: 404, code: 'RECORD_NOT_FOUND' });
  });

  it('needs public:read (403 INSUFFICIENT_SCOPE) and a valid key (401)', async () => {
    const input = recordJson();
    await records().put(partnerId, input);
    expect(await lookup(input.uuid, recordsKeyOnly)).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    expect(await lookup(input.uuid, `pak_live_${'9'.repeat(64)}`)).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
  });
});

describe('GET /partners/{partner_id}/records/{record_id}', () => {
  async function detail(recordId: string, key = orgKeyValue, partner = partnerId) {
    const response = await stack.call(`/partners/${partner}/records/${encodeURIComponent(recordId)}`, { headers: bearer(key) });
    const text = await response.text();
    const body = JSON.parse(text) as { data?: Record<string, unknown>; error?: { code: string } };
    return { status: response.status, code: body.error?.code, data: body.data, text };
  }

  it('answers a record of the organization, private ones included, with the spec\'s fields only', async () => {
    const put = await records().put(partnerId, recordJson({ public: false, result: 'warning' }));
    const found = await detail(put.id);
    expect(found.status).toBe(200);
    expect(found.data).toMatchObject({ id: put.id, result: 'warning', result_label: 'Warning' });
    expect(Object.keys(found.data ?? {}).sort()).toEqual(
      ['checked_at', 'checker_name', 'game', 'game_category', 'id', 'player_name', 'public_notes', 'result', 'result_label', 'updated_at', 'uuid'].sort(),
    );
    expect(found.text).not.toMatch(/INTERNAL|STAFF/);
  });

  it('answers 404 RECORD_NOT_FOUND for a record of another organization, a deleted one and an unknown id', async () => {
    const { partner_id: other } = await stack.office.organizations.create();
    const elsewhere = await records().put(other, recordJson());
    expect(await detail(elsewhere.id)).toMatchObject({ status: 404, code: 'RECORD_NOT_FOUND' });
    const gone = await records().put(partnerId, recordJson());
    await records().delete(partnerId, gone.id);
    expect(await detail(gone.id)).toMatchObject({ status: 404, code: 'RECORD_NOT_FOUND' });
    expect(await detail('rec_unknown')).toMatchObject({ status: 404, code: 'RECORD_NOT_FOUND' });
  });

  it('refuses another organization in the path or a personal key (403 PARTNER_SCOPE_MISMATCH), and a key without records:read (403 INSUFFICIENT_SCOPE)', async () => {
    const put = await records().put(partnerId, recordJson());
    expect(await detail(put.id, orgKeyValue, 'org_other')).toMatchObject({ status: 403, code: 'PARTNER_SCOPE_MISMATCH' });
    expect(await detail(put.id, publicKey)).toMatchObject({ status: 403, code: 'PARTNER_SCOPE_MISMATCH' });
    const noRecords = await stack.office.keys.create({ accountId: managerAccountId, partnerId, scopes: ['public:read'] });
    expect(await detail(put.id, noRecords.key)).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
  });
});

describe('the outbox', () => {
  it('writes record.created, record.updated and record.deleted with each change, in order, with only record_id as data', async () => {
    const { partner_id } = await stack.office.organizations.create();
    const input = recordJson();
    const created = await records().put(partner_id, input);
    const updated = await records().put(partner_id, { ...input, uuid: input.uuid.toLowerCase(), result: 'cheating', result_label: 'Cheating (corrected)' });
    expect(updated.id).toBe(created.id);
    expect((await lookup(input.uuid)).data).toMatchObject({ result: 'cheating', result_label: 'Cheating (corrected)', uuid: input.uuid });
    await records().delete(partner_id, created.id);

    const { events } = await records().events(partner_id);
    expect(events.map((e) => e.type)).toEqual(['record.created', 'record.updated', 'record.deleted']);
    expect(events.map((e) => e.id)).toEqual([created.event_id, updated.event_id, expect.stringMatching(/^evt_/)]);
    for (const event of events) {
      expect(event).toEqual({ id: expect.stringMatching(/^evt_[0-9a-z]+_[0-9a-f]{16}$/), type: event.type, api_version: 'v1', partner_id, created_at: expect.any(String), data: { record_id: created.id } });
    }
    expect((await records().events(partner_id, events[0].id)).events.map((e) => e.type)).toEqual(['record.updated', 'record.deleted']);
  });

  it('moves a record: record.deleted for the old organization (no target revealed), record.created for the new one', async () => {
    const { partner_id: from } = await stack.office.organizations.create();
    const { partner_id: to } = await stack.office.organizations.create();
    const put = await records().put(from, recordJson());
    const moved = await records().move(put.id, to);
    expect(moved.partner_id).toBe(to);
    const [, left] = (await records().events(from)).events;
    expect(left).toMatchObject({ type: 'record.deleted', partner_id: from, data: { record_id: put.id } });
    expect(JSON.stringify(left)).not.toContain(to);
    expect((await records().events(to)).events).toEqual([expect.objectContaining({ type: 'record.created', partner_id: to, data: { record_id: put.id } })]);
    await expect(records().move(put.id, 'org_missing')).rejects.toMatchObject({ code: 'ORG_NOT_FOUND' });
  });

  it('refuses a uuid of another organization without writing anything', async () => {
    const input = recordJson();
    await records().put(partnerId, input);
    const { partner_id: other } = await stack.office.organizations.create();
    await expect(records().put(other, input)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect((await records().events(other)).events).toEqual([]);
  });

  it('leaves neither the record nor its event when the event write fails inside the transaction', async () => {
    const client = clientFailingEventWrites(stack.dynamoEndpoint);
    const { partner_id } = await stack.office.organizations.create();
    const failing = createBackOffice(client, stack.tables.access, undefined, stack.tables.domain).records!;
    const input = recordJson();
    await expect(failing.put(partner_id, input)).rejects.toThrow();
    client.destroy();

    expect(await lookup(input.uuid)).toMatchObject({ status: 404, code: 'RECORD_NOT_FOUND' });
    expect((await records().events(partner_id)).events).toEqual([]);
  });
});
