/**
 * Every back-office action (records, entitlements, ticket actions) writes
 * its business event in the same transaction as its change. For each action: with the event write made to
 * fail inside the transaction, the action fails and the domain table is
 * exactly as it was (neither the change nor the event); without the
 * failure, the change and its events are there together.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import type { localDocumentClient } from '../../local/local-stack';
import { clientFailingEventWrites } from '../support/failing-events';
import { claimInvitation } from '../../lambdas/invitations/claim';
import { InvitationStore } from '../../lambdas/invitations/invitation-store';
import { DynamoTicketBridge } from '../../lambdas/tickets/ticket-bridge';
import { startTestStack, type TestStack } from '../support/test-stack';
import { recordInput as sharedRecordInput } from '../support/record-input';

let stack: TestStack;
let failing: BackOffice;
let failingClient: ReturnType<typeof localDocumentClient>;

beforeAll(async () => {
  stack = await startTestStack();
  failingClient = clientFailingEventWrites(stack.dynamoEndpoint);
  failing = createBackOffice(failingClient, stack.tables.access, undefined, stack.tables.domain);
});
afterAll(async () => {
  failingClient?.destroy();
  await stack?.stop();
});

/** Every item of this test file's domain table, sorted: a test's own table, so a Scan is the whole truth. */
async function domainSnapshot(): Promise<string[]> {
  const items: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await stack.client.send(new ScanCommand({ TableName: stack.tables.domain, ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []).map((item) => JSON.stringify(item, Object.keys(item).sort())));
    start = page.LastEvaluatedKey;
  } while (start);
  return items.sort();
}

let serial = 0;
const recordInput = (overrides: Record<string, unknown> = {}) => sharedRecordInput('Atom', overrides);
const at = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

interface Action {
  readonly name: string;
  /** Prepares the state and returns the action, run once with the failing office and once with the real one. */
  prepare(partnerId: string, otherId: string): Promise<(office: BackOffice) => Promise<unknown>>;
  /** Events the action writes, by organization. */
  readonly events: (partnerId: string, otherId: string) => Array<[string, string]>;
}

const ACTIONS: Action[] = [
  {
    name: 'record put (create)',
    prepare: async () => {
      const input = recordInput();
      return (office) => office.records!.put(partner, input);
    },
    events: (p) => [[p, 'record.created']],
  },
  {
    name: 'record put (update)',
    prepare: async (p) => {
      const input = recordInput();
      await stack.office.records!.put(p, input);
      return (office) => office.records!.put(p, { ...input, result: 'cheating' });
    },
    events: (p) => [[p, 'record.updated']],
  },
  {
    name: 'record delete',
    prepare: async (p) => {
      const { id } = await stack.office.records!.put(p, recordInput());
      return (office) => office.records!.delete(p, id as string);
    },
    events: (p) => [[p, 'record.deleted']],
  },
  {
    name: 'record move',
    prepare: async (p, o) => {
      const { id } = await stack.office.records!.put(p, recordInput());
      return (office) => office.records!.move(id as string, o);
    },
    events: (p, o) => [
      [p, 'record.deleted'],
      [o, 'record.created'],
    ],
  },
  {
    name: 'record archive',
    prepare: async (p) => {
      await stack.office.entitlements!.grant({ owner: `partner:${p}`, game: 'fps', units: 3, startsAt: at(-1), expiresAt: at(30) });
      const { id } = await stack.office.records!.put(p, recordInput());
      return (office) => office.records!.archive(p, id as string, 'fps');
    },
    events: (p) => [[p, 'entitlement.updated']],
  },
  ...(['message', 'status', 'assign'] as const).map(
    (kind): Action => ({
      name: `ticket ${kind}`,
      prepare: async (p) => {
        const invitations = new InvitationStore(stack.client, stack.tables.domain);
        const creation = await invitations.create({ keyId: 'key_atomic', partnerId: p, idempotencyKey: `atomic-ticket-${(serial += 1)}-0123` }, { game: 'fps' }, new Date());
        const id = (creation as { item: { id: string } }).item.id;
        await claimInvitation({ invitations, tickets: new DynamoTicketBridge(stack.client, stack.tables.domain) }, id, { in_game_name: 'A', game_account_id: 'a' }, new Date());
        return (office) =>
          kind === 'message'
            ? office.invitations!.message(id, 'staff', 'Hello')
            : kind === 'status'
              ? office.invitations!.status(id, 'resolved')
              : office.invitations!.assign(id, 'Sam');
      },
      events: (p) => [[p, kind === 'message' ? 'ticket.message.created' : 'ticket.status.updated']],
    }),
  ),
  {
    name: 'entitlement grant',
    prepare: async (p) => (office) => office.entitlements!.grant({ owner: `partner:${p}`, game: 'minecraft', units: 5, startsAt: at(-1), expiresAt: at(30) }),
    events: (p) => [[p, 'entitlement.updated']],
  },
  {
    name: 'entitlement use',
    prepare: async (p) => {
      await stack.office.entitlements!.grant({ owner: `partner:${p}`, game: 'minecraft', units: 5, startsAt: at(-1), expiresAt: at(30) });
      return (office) => office.entitlements!.use(`partner:${p}`, 'minecraft', 2);
    },
    events: (p) => [[p, 'entitlement.updated']],
  },
  {
    name: 'entitlement refund',
    prepare: async (p) => {
      await stack.office.entitlements!.grant({ owner: `partner:${p}`, game: 'minecraft', units: 5, startsAt: at(-1), expiresAt: at(30) });
      const { use_id } = await stack.office.entitlements!.use(`partner:${p}`, 'minecraft', 2);
      return (office) => office.entitlements!.refund(use_id);
    },
    events: (p) => [[p, 'entitlement.updated']],
  },
];

let partner: string;

describe('each back-office action and its event are written together or not at all', () => {
  it.each(ACTIONS.map((a) => [a.name, a] as const))('%s', async (_, action) => {
    partner = (await stack.office.organizations.create('Atomic')).partner_id;
    const other = (await stack.office.organizations.create('Other')).partner_id;
    const run = await action.prepare(partner, other);
    const before = await domainSnapshot();
    const eventsBefore = { [partner]: (await stack.office.records!.events(partner)).events.length, [other]: (await stack.office.records!.events(other)).events.length };

    await expect(run(failing)).rejects.toThrow();
    expect(await domainSnapshot()).toEqual(before);

    await run(stack.office);
    const after = await domainSnapshot();
    expect(after).not.toEqual(before);
    const written: Array<[string, string]> = [];
    for (const org of [partner, other]) {
      for (const event of (await stack.office.records!.events(org)).events.slice(eventsBefore[org])) written.push([org, event.type]);
    }
    expect(written).toEqual(action.events(partner, other));
  });
});
