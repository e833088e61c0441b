/**
 * Revocation always wins over a concurrent promotion, against DynamoDB Local:
 * a `member set --role manager` paused between its reads and its write, while
 * the creator is demoted or removed, must not put the old grant back — the
 * creator's organization key stays refused, through the local front.
 *
 * The pause is a middleware on the promoting back office's own client that
 * holds its first transaction until the test opens the gate: the writes are
 * real DynamoDB Local writes, only their timing is chosen.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { orgKey } from '../../lambdas/shared/identity/access-items';
import { localDocumentClient } from '../../local/local-stack';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

/** A back office whose first transaction waits at the gate; `reached` resolves when it gets there. */
function pausedBackOffice() {
  const client = localDocumentClient(stack.dynamoEndpoint);
  let open!: () => void;
  let arrived!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  let held = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand' && !held) {
        held = true;
        arrived();
        await gate;
      }
      return next(args);
    },
    { step: 'initialize', name: 'pauseFirstTransaction' },
  );
  return { office: createBackOffice(client, stack.tables.access), reached, open, close: () => client.destroy() };
}

async function meStatus(key: string) {
  return (await stack.call('/me', { headers: bearer(key) })).status;
}

async function managers(partnerId: string): Promise<Record<string, string>> {
  const { Item } = await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: orgKey(partnerId), ConsistentRead: true }));
  return (Item?.managers ?? {}) as Record<string, string>;
}

describe('a promotion that read the grant before a concurrent revocation', () => {
  it.each([
    { name: 'a demotion', revoke: (partnerId: string, accountId: string) => stack.office.memberships.set(partnerId, accountId, 'member') },
    { name: 'a removal', revoke: (partnerId: string, accountId: string) => stack.office.memberships.remove(partnerId, accountId) },
  ])('does not restore the old grant after $name: the creator\u2019s key stays revoked', async ({ revoke }) => {
    const { account_id, partner_id, key } = await createOrgWithManagerKey(stack.office, ['records:read']);
    const oldGrant = (await managers(partner_id))[account_id];
    expect(await meStatus(key.key)).toBe(200);

    // The promotion (of an account that is manager right now) reads the grant, then pauses before writing.
    const paused = pausedBackOffice();
    const promotion = paused.office.memberships.set(partner_id, account_id, 'manager');
    await paused.reached;

    // The revocation completes meanwhile.
    await revoke(partner_id, account_id);
    expect(await meStatus(key.key)).toBe(403);

    // The promotion goes on: its write must not hold the grant it read.
    paused.open();
    await expect(promotion).resolves.toMatchObject({ role: 'manager' });
    paused.close();

    const grant = (await managers(partner_id))[account_id];
    expect(grant).toBeDefined();
    expect(grant).not.toBe(oldGrant);
    // The account is manager again, with a new grant: the old key is revoked for good.
    expect(await meStatus(key.key)).toBe(401);
  });

  it('a demotion that read the grant before a promotion still removes the grant it finds', async () => {
    // The other order: demotion paused, a (no-op) promotion of the existing manager completes, the demotion goes on.
    const { account_id, partner_id, key } = await createOrgWithManagerKey(stack.office, ['records:read']);
    const paused = pausedBackOffice();
    const demotion = paused.office.memberships.set(partner_id, account_id, 'member');
    await paused.reached;
    await stack.office.memberships.set(partner_id, account_id, 'manager');
    paused.open();
    await demotion;
    paused.close();

    expect((await managers(partner_id))[account_id]).toBeUndefined();
    expect(await meStatus(key.key)).toBe(403);
  });
});
