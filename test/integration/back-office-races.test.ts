/**
 * Revocation always wins a race with a role change, against DynamoDB Local,
 * in both orders: a `member set --role manager` paused between its reads and
 * its write while the creator is demoted or removed must not put the old
 * grant back; and a demotion or removal paused while the creator is demoted
 * and promoted again (a new grant, a new key) still leaves no grant. The
 * creator's organization keys stay refused, through the local front.
 *
 * The pause is a middleware on the paused back office's own client that
 * holds its first transaction until the test opens the gate: the writes are
 * real DynamoDB Local writes, only their timing is chosen.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { orgKey } from '../../lambdas/shared/identity/access-items';
import { localDocumentClient } from '../../local/local-stack';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

type Operation = (office: BackOffice, partnerId: string, accountId: string) => Promise<unknown>;

const promote: Operation = (office, partnerId, accountId) => office.memberships.set(partnerId, accountId, 'manager');
const REVOCATIONS: { name: string; revoke: Operation }[] = [
  { name: 'a demotion', revoke: (office, partnerId, accountId) => office.memberships.set(partnerId, accountId, 'member') },
  { name: 'a removal', revoke: (office, partnerId, accountId) => office.memberships.remove(partnerId, accountId) },
];

/**
 * Start `operation` on a back office whose first transaction waits at a gate.
 * Resolves once the operation has done its reads and reached the gate; `finish()` opens the gate and
 * returns the operation's outcome.
 */
async function startPaused(operation: Operation, partnerId: string, accountId: string) {
  const client = localDocumentClient(stack.dynamoEndpoint);
  onTestFinished(() => client.destroy());
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
  const outcome = operation(createBackOffice(client, stack.tables.access), partnerId, accountId);
  // An operation that fails before its write ends the test at once instead of leaving it waiting.
  await Promise.race([reached, outcome]);
  return {
    finish: () => {
      open();
      return outcome;
    },
  };
}

async function meStatus(key: string) {
  return (await stack.call('/me', { headers: bearer(key) })).status;
}

async function grantOf(partnerId: string, accountId: string): Promise<string | undefined> {
  const { Item } = await stack.client.send(new GetCommand({ TableName: stack.tables.access, Key: orgKey(partnerId), ConsistentRead: true }));
  return (Item?.managers as Record<string, string> | undefined)?.[accountId];
}

describe('a promotion that read the grant before a concurrent revocation', () => {
  it.each(REVOCATIONS)('does not restore the old grant after $name: the creator\u2019s key stays revoked', async ({ revoke }) => {
    // Prepare: a manager with an organization key that works.
    const { account_id, partner_id, key } = await createOrgWithManagerKey(stack.office, ['records:read']);
    const oldGrant = await grantOf(partner_id, account_id);
    expect(await meStatus(key.key)).toBe(200);

    // Act: the promotion (of an account that is manager right now) reads the grant and pauses before
    // writing; the revocation completes meanwhile; then the promotion goes on.
    const promotion = await startPaused(promote, partner_id, account_id);
    await revoke(stack.office, partner_id, account_id);
    expect(await meStatus(key.key)).toBe(403);
    await expect(promotion.finish()).resolves.toMatchObject({ role: 'manager' });

    // Assess: the account is manager again, with a new grant: the old key is revoked for good.
    expect(await meStatus(key.key)).toBe(401);
    const grant = await grantOf(partner_id, account_id);
    expect(grant).toBeDefined();
    expect(grant).not.toBe(oldGrant);
  });
});

describe('a revocation that started before a concurrent re-promotion', () => {
  it.each(REVOCATIONS)('$name still removes the grant it finds: every key of the creator is refused', async ({ revoke }) => {
    // Prepare: a manager with an organization key.
    const { account_id, partner_id, key } = await createOrgWithManagerKey(stack.office, ['records:read']);

    // Act: the revocation does its reads and pauses before writing; meanwhile the creator is demoted,
    // promoted again (a new grant) and creates a new key; then the revocation goes on.
    const revocation = await startPaused(revoke, partner_id, account_id);
    await stack.office.memberships.set(partner_id, account_id, 'member');
    await stack.office.memberships.set(partner_id, account_id, 'manager');
    const newer = await stack.office.keys.create({ accountId: account_id, partnerId: partner_id, scopes: ['records:read'] });
    expect(await meStatus(newer.key)).toBe(200);
    await revocation.finish();

    // Assess: no grant is left, so neither key works.
    expect(await grantOf(partner_id, account_id)).toBeUndefined();
    expect(await meStatus(key.key)).toBe(403);
    expect(await meStatus(newer.key)).toBe(403);
  });
});
