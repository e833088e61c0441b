/**
 * `record archive` on DynamoDB Local: archiving a record uses one unit of the
 * organization's entitlement for the game, with the record's archive marks
 * and `entitlement.updated` in one transaction; a record is archived once,
 * exactly, under concurrency; units never go below zero; a failure injected
 * into the transaction leaves nothing.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { localDocumentClient } from '../../local/local-stack';
import { clientFailingEventWrites } from '../support/failing-events';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

let serial = 0;
const recordInput = () => {
  serial += 1;
  return {
    uuid: `USS-${String(40000000 + serial)}-Arch${String(serial).padStart(8, '0')}`,
    player_name: 'Steve',
    game_category: 'Minecraft',
    game: 'Minecraft: Java Edition',
    checked_at: '2026-10-01T10:00:00Z',
    result: 'cheating',
    checker_name: 'Alex Checker',
  };
};

async function orgWithUnits(units: number) {
  const org = await createOrgWithManagerKey(stack.office, ['records:read', 'entitlements:read']);
  const at = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
  await stack.office.entitlements!.grant({ owner: `partner:${org.partner_id}`, game: 'minecraft', units, startsAt: at(-1), expiresAt: at(30) });
  return org;
}

async function minecraftSummary(partnerId: string, key: string) {
  const response = await stack.call(`/partners/${partnerId}/entitlements`, { headers: bearer(key) });
  const body = (await response.json()) as { data: { games: { game: string; used_units: number; remaining_units: number }[] } };
  return body.data.games.find((g) => g.game === 'minecraft')!;
}

const recordItem = async (recordId: string) =>
  (await stack.client.send(new GetCommand({ TableName: stack.tables.domain, Key: { pk: `RECORD#${recordId}`, sk: 'RECORD' }, ConsistentRead: true }))).Item;

describe('record archive', () => {
  it('uses one unit, marks the record (nothing public changes) and writes entitlement.updated', async () => {
    const org = await orgWithUnits(3);
    const record = await stack.office.records!.put(org.partner_id, recordInput());
    const eventsBefore = (await stack.office.records!.events(org.partner_id)).events.length;

    const archived = await stack.office.records!.archive(org.partner_id, record.id, 'minecraft');

    expect(archived).toMatchObject({ record_id: record.id, archived: true, game: 'minecraft', use_id: expect.stringMatching(/^use_/) });
    expect(await minecraftSummary(org.partner_id, org.key.key)).toMatchObject({ used_units: 1, remaining_units: 2 });
    const item = await recordItem(record.id);
    expect(item).toMatchObject({ archived_game: 'minecraft', archive_use: archived.use_id, updated_at: record.updated_at });
    const events = (await stack.office.records!.events(org.partner_id)).events;
    expect(events.slice(eventsBefore).map((e) => [e.type, e.data])).toEqual([['entitlement.updated', { game: 'minecraft' }]]);
    // The record's API view is what it was.
    const view = await stack.call(`/partners/${org.partner_id}/records/${record.id}`, { headers: bearer(org.key.key) });
    expect(((await view.json()) as { data: { updated_at: string } }).data.updated_at).toBe(record.updated_at);
  });

  it('archives a record once: a second archive is ALREADY_ARCHIVED and uses nothing; a later correction keeps the archive', async () => {
    const org = await orgWithUnits(3);
    const record = await stack.office.records!.put(org.partner_id, recordInput());
    await stack.office.records!.archive(org.partner_id, record.id, 'minecraft');
    await expect(stack.office.records!.archive(org.partner_id, record.id, 'minecraft')).rejects.toMatchObject({ code: 'ALREADY_ARCHIVED' });
    await stack.office.records!.put(org.partner_id, { ...recordInput(), uuid: record.uuid, result: 'warning' });
    await expect(stack.office.records!.archive(org.partner_id, record.id, 'minecraft')).rejects.toMatchObject({ code: 'ALREADY_ARCHIVED' });
    expect(await minecraftSummary(org.partner_id, org.key.key)).toMatchObject({ used_units: 1 });
  });

  it('refuses another organization\u2019s record, an unknown game, and an organization without units', async () => {
    const org = await orgWithUnits(1);
    const other = await orgWithUnits(1);
    const record = await stack.office.records!.put(org.partner_id, recordInput());
    await expect(stack.office.records!.archive(other.partner_id, record.id, 'minecraft')).rejects.toMatchObject({ code: 'RECORD_NOT_FOUND' });
    await expect(stack.office.records!.archive(org.partner_id, record.id, 'chess')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(stack.office.records!.archive(org.partner_id, record.id, 'fps')).rejects.toMatchObject({ code: 'INSUFFICIENT_UNITS' });
    expect(await recordItem(record.id)).not.toHaveProperty('archived_at');
    expect(await minecraftSummary(other.partner_id, other.key.key)).toMatchObject({ used_units: 0 });
  });

  it('archives a record exactly once when 6 archives of it run at the same time', async () => {
    const org = await orgWithUnits(10);
    const record = await stack.office.records!.put(org.partner_id, recordInput());
    const offices = Array.from({ length: 6 }, () => createBackOffice(localDocumentClient(stack.dynamoEndpoint), stack.tables.access, undefined, stack.tables.domain));

    const outcomes = await Promise.allSettled(offices.map((office) => office.records!.archive(org.partner_id, record.id, 'minecraft')));

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'ALREADY_ARCHIVED' });
    expect(await minecraftSummary(org.partner_id, org.key.key)).toMatchObject({ used_units: 1, remaining_units: 9 });
  });

  it('uses exactly the units there are when 8 records are archived at the same time against 5 units', async () => {
    const org = await orgWithUnits(5);
    const records = [];
    for (let i = 0; i < 8; i += 1) records.push(await stack.office.records!.put(org.partner_id, recordInput()));
    const offices = records.map(() => createBackOffice(localDocumentClient(stack.dynamoEndpoint), stack.tables.access, undefined, stack.tables.domain));

    const outcomes = await Promise.allSettled(records.map((record, i) => offices[i].records!.archive(org.partner_id, record.id, 'minecraft')));

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'INSUFFICIENT_UNITS' });
    expect(await minecraftSummary(org.partner_id, org.key.key)).toMatchObject({ used_units: 5, remaining_units: 0 });
    const archived = await Promise.all(records.map((r) => recordItem(r.id)));
    expect(archived.filter((item) => item?.archived_at !== undefined)).toHaveLength(5);
  });

  it('leaves neither the use, the archive marks nor the event when the event write fails inside the transaction', async () => {
    const org = await orgWithUnits(2);
    const record = await stack.office.records!.put(org.partner_id, recordInput());
    const eventsBefore = (await stack.office.records!.events(org.partner_id)).events.length;
    const client = clientFailingEventWrites(stack.dynamoEndpoint);
    const failing = createBackOffice(client, stack.tables.access, undefined, stack.tables.domain).records!;

    await expect(failing.archive(org.partner_id, record.id, 'minecraft')).rejects.toThrow();
    client.destroy();

    expect(await recordItem(record.id)).not.toHaveProperty('archived_at');
    expect(await minecraftSummary(org.partner_id, org.key.key)).toMatchObject({ used_units: 0, remaining_units: 2 });
    expect((await stack.office.records!.events(org.partner_id)).events).toHaveLength(eventsBefore);
  });
});
