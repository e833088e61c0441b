/**
 * An operator re-running an identity command of the admin CLI after an error that left its outcome unknown
 * (docs/operations.md "Running a command again"): `org create`, `account create`, `key create` and `member remove`
 * with the same `--request-id` make their change once and answer it again, `replayed`.
 *
 * Faults are injected at the call site (local/fault-injection.ts) on a back office of its own: `fail-after` (the write
 * is applied, every try's answer lost: the first run fails) and `lose-answer` (one try's answer lost below the SDK,
 * which sends the write again). The checks read the tables through the test stack's own client, which no rule counts.
 */
import { describe, expect, it } from 'vitest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createBackOffice, type BackOffice } from '../../lambdas/back-office/back-office';
import { verifyPassword } from '../../lambdas/back-office/passwords';
import { describeFailure, runAdminCommand } from '../../scripts/admin-cli';
import { withFaultyClient, type FaultyClient } from '../support/faulty-client';
import type { TestStack } from '../support/test-stack';

let stack: TestStack;
let faulty: FaultyClient;
let office: BackOffice;
const faults = withFaultyClient((world) => {
  ({ stack, client: faulty } = world);
  office = createBackOffice(faulty, stack.tables.access, undefined, stack.tables.domain);
});

/** One run of the CLI's command, as an invocation the fault plan counts; a password, when the command asks for one. */
const admin = (argv: string[], password?: string) =>
  faults.invocation('api', () => runAdminCommand(argv, office, { read: async () => password ?? 'no password given' }));

/** What a run threw, described as the CLI prints it. */
const failureOf = (run: Promise<unknown>) =>
  run.then(
    () => {
      throw new Error('the command succeeded');
    },
    (error: unknown) => describeFailure(error),
  );

let serial = 0;
const unique = (tag: string) => `${tag}-${Date.now()}-${(serial += 1)}`;

/** The access table's items of `type` whose `field` is `value` (a scan: this file's tables are small). */
async function itemsWhere(type: string, field: string, value: string) {
  const { Items } = await stack.client.send(
    new ScanCommand({
      TableName: stack.tables.access,
      FilterExpression: '#type = :type AND #field = :value',
      ExpressionAttributeNames: { '#type': 'type', '#field': field },
      ExpressionAttributeValues: { ':type': type, ':value': value },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

const writeOf = (type: string) => (input: Readonly<Record<string, unknown>>) => (input.Item as { type?: string } | undefined)?.type === type;

describe('org create --request-id', () => {
  it('answers the organization its first run made when that run failed after the write, and makes no second one', async () => {
    // Prepare
    const name = unique('Org');
    const requestId = unique('req');
    const lost = faults.arm({ component: 'api', call: 'PutItem', matches: writeOf('org'), effect: 'fail-after' });

    // Act
    const first = await failureOf(admin(['org', 'create', '--name', name, '--request-id', requestId]));
    const again = (await admin(['org', 'create', '--name', name, '--request-id', requestId])) as { partner_id: string; replayed?: boolean };

    // Assess
    expect(lost.fired()).toBe(true);
    expect(first.message).toContain(`re-run with --request-id ${requestId}`);
    expect(again).toEqual({ partner_id: expect.stringMatching(/^org_[0-9a-f]{20}$/), replayed: true });
    expect((await itemsWhere('org', 'name', name)).map((org) => org.partner_id)).toEqual([again.partner_id]);
  });

  it('refuses the same request id with another name (REQUEST_ID_REUSED) and makes nothing', async () => {
    // Prepare
    const requestId = unique('req');
    const made = (await admin(['org', 'create', '--name', unique('First'), '--request-id', requestId])) as { partner_id: string };
    const other = unique('Other');

    // Act
    const refused = await failureOf(admin(['org', 'create', '--name', other, '--request-id', requestId]));

    // Assess
    expect(refused.code).toBe('REQUEST_ID_REUSED');
    expect(await itemsWhere('org', 'name', other)).toEqual([]);
    expect((await stack.office.organizations.get(made.partner_id))?.status).toBe('active');
  });

  it.each([
    { given: 'with a request id', withId: true },
    { given: 'without one (the seed, tests)', withId: false },
  ])('makes the organization once when one try’s answer is lost and the SDK sends the write again ($given)', async ({ withId }) => {
    // Prepare
    const name = unique('Org');
    const lost = faults.arm({ component: 'api', call: 'PutItem', matches: writeOf('org'), effect: 'lose-answer' });

    // Act
    const made = await faults.invocation('api', () => office.organizations.create(name, withId ? unique('req') : undefined));

    // Assess
    expect(lost.fired()).toBe(true);
    expect(made).toEqual({ partner_id: expect.stringMatching(/^org_/) });
    expect((await itemsWhere('org', 'name', name)).map((org) => org.partner_id)).toEqual([made.partner_id]);
  });
});

describe('account create --request-id', () => {
  it('answers the account its first run made when that run failed after the write, and makes no second one', async () => {
    // Prepare
    const name = unique('Account');
    const requestId = unique('req');
    const lost = faults.arm({ component: 'api', call: 'PutItem', matches: writeOf('account'), effect: 'fail-after' });

    // Act
    const first = await failureOf(admin(['account', 'create', '--name', name, '--request-id', requestId]));
    const again = (await admin(['account', 'create', '--name', name, '--request-id', requestId])) as { account_id: string };

    // Assess
    expect(lost.fired()).toBe(true);
    expect(first.message).toContain(`re-run with --request-id ${requestId}`);
    expect(again).toEqual({ account_id: expect.stringMatching(/^acc_[0-9a-f]{20}$/), replayed: true });
    expect((await itemsWhere('account', 'name', name)).map((account) => account.account_id)).toEqual([again.account_id]);
  });

  it('makes the account once when one try’s answer is lost and the SDK sends the write again', async () => {
    // Prepare
    const name = unique('Account');
    const lost = faults.arm({ component: 'api', call: 'PutItem', matches: writeOf('account'), effect: 'lose-answer' });

    // Act
    const made = (await admin(['account', 'create', '--name', name, '--request-id', unique('req')])) as { account_id: string };

    // Assess
    expect(lost.fired()).toBe(true);
    expect(made).toEqual({ account_id: expect.stringMatching(/^acc_/) });
    expect((await itemsWhere('account', 'name', name)).map((account) => account.account_id)).toEqual([made.account_id]);
  });

  it('with an e-mail and a password, answers its own account instead of EMAIL_TAKEN, and the password signs in', async () => {
    // Prepare
    const email = `${unique('jane')}@partner.example`;
    const requestId = unique('req');
    const argv = ['account', 'create', '--name', 'Jane', '--email', email, '--password-stdin', '--request-id', requestId];
    const lost = faults.arm({ component: 'api', call: 'TransactWriteItems', effect: 'fail-after' });

    // Act
    const first = await failureOf(admin(argv, 'first passphrase'));
    const again = (await admin(argv, 'first passphrase')) as { account_id: string };

    // Assess
    expect(lost.fired()).toBe(true);
    expect(first.code).not.toBe('EMAIL_TAKEN');
    expect(again).toEqual({ account_id: expect.stringMatching(/^acc_/), email, replayed: true });
    expect((await itemsWhere('email', 'pk', `EMAIL#${email}`)).map((reservation) => reservation.account_id)).toEqual([again.account_id]);
    expect((await itemsWhere('account', 'name', 'Jane')).filter((account) => account.account_id === again.account_id)).toHaveLength(1);
    expect((await stack.office.accounts.findByEmail(email))?.account.account_id).toBe(again.account_id);
  });

  it('refuses a re-run that types another password (REQUEST_ID_REUSED): the first password stays', async () => {
    // Prepare
    const email = `${unique('joe')}@partner.example`;
    const requestId = unique('req');
    const argv = ['account', 'create', '--email', email, '--password-stdin', '--request-id', requestId];
    await admin(argv, 'first passphrase');

    // Act
    const refused = await failureOf(admin(argv, 'other passphrase'));

    // Assess
    expect(refused.code).toBe('REQUEST_ID_REUSED');
    const stored = (await stack.office.accounts.findByEmail(email))?.signIn.password_hash as string;
    expect(await verifyPassword('first passphrase', stored)).toBe(true);
  });
});

describe('member remove --request-id', () => {
  async function member() {
    const { account_id } = await stack.office.accounts.create('Member');
    const { partner_id } = await stack.office.organizations.create('Org');
    await stack.office.memberships.set(partner_id, account_id, 'manager');
    return { account_id, partner_id };
  }
  const removals = async (accountId: string) => (await stack.office.audit.list(accountId)).filter((entry) => entry.action === 'membership.removed');

  it('answers the removal its first run made when that run failed after the write, instead of MEMBER_NOT_FOUND', async () => {
    // Prepare
    const { account_id, partner_id } = await member();
    const requestId = unique('req');
    const lost = faults.arm({ component: 'api', call: 'TransactWriteItems', effect: 'fail-after' });

    // Act
    const first = await failureOf(admin(['member', 'remove', '--org', partner_id, '--account', account_id, '--request-id', requestId]));
    const again = await admin(['member', 'remove', '--org', partner_id, '--account', account_id, '--request-id', requestId]);

    // Assess
    expect(lost.fired()).toBe(true);
    expect(first.message).toContain(`re-run with --request-id ${requestId}`);
    expect(again).toEqual({ partner_id, account_id, removed: true, replayed: true });
    expect(await stack.office.memberships.ofAccount(account_id)).toEqual([]);
    expect(await removals(account_id)).toHaveLength(1);
  });

  it('removes nothing when run again after the account was made a member again (the request was made once)', async () => {
    // Prepare
    const { account_id, partner_id } = await member();
    const requestId = unique('req');
    await admin(['member', 'remove', '--org', partner_id, '--account', account_id, '--request-id', requestId]);
    await stack.office.memberships.set(partner_id, account_id, 'member');

    // Act
    const again = await admin(['member', 'remove', '--org', partner_id, '--account', account_id, '--request-id', requestId]);

    // Assess
    expect(again).toMatchObject({ removed: true, replayed: true });
    expect((await stack.office.memberships.ofAccount(account_id)).map((m) => m.role)).toEqual(['member']);
    expect(await removals(account_id)).toHaveLength(1);
  });

  it('refuses the same request id for another member (REQUEST_ID_REUSED) and removes nothing', async () => {
    // Prepare
    const first = await member();
    const second = await member();
    const requestId = unique('req');
    await admin(['member', 'remove', '--org', first.partner_id, '--account', first.account_id, '--request-id', requestId]);

    // Act
    const refused = await failureOf(admin(['member', 'remove', '--org', second.partner_id, '--account', second.account_id, '--request-id', requestId]));

    // Assess
    expect(refused.code).toBe('REQUEST_ID_REUSED');
    expect((await stack.office.memberships.ofAccount(second.account_id)).map((m) => m.role)).toEqual(['manager']);
  });

  it('still answers MEMBER_NOT_FOUND for a request that never removed anything', async () => {
    // Prepare
    const { account_id } = await stack.office.accounts.create('Never a member');
    const { partner_id } = await stack.office.organizations.create('Org');

    // Act
    const refused = await failureOf(admin(['member', 'remove', '--org', partner_id, '--account', account_id, '--request-id', unique('req')]));

    // Assess
    expect(refused.code).toBe('MEMBER_NOT_FOUND');
  });
});

describe('key create --request-id', () => {
  it('answers the key its first run made (without its value) when that run failed after the write, and makes no second one', async () => {
    // Prepare
    const { account_id } = await stack.office.accounts.create('Key owner');
    const argv = ['key', 'create', '--account', account_id, '--scopes', 'public:read', '--days', '30', '--request-id', unique('req')];
    const lost = faults.arm({ component: 'api', call: 'TransactWriteItems', effect: 'fail-after' });

    // Act
    const first = await failureOf(admin(argv));
    const again = (await admin(argv)) as Record<string, unknown>;

    // Assess
    expect(lost.fired()).toBe(true);
    expect(first.message).toContain('re-run with --request-id');
    expect(again).toMatchObject({ key_id: expect.any(String), account_id, replayed: true });
    expect(again).not.toHaveProperty('key');
    expect((await stack.office.keys.list(account_id)).keys.map((key) => key.key_id)).toEqual([again.key_id]);
  });

  it('refuses the same request id with other scopes (REQUEST_ID_REUSED) and makes no key', async () => {
    // Prepare
    const { account_id } = await stack.office.accounts.create('Key owner');
    const requestId = unique('req');
    await admin(['key', 'create', '--account', account_id, '--scopes', 'public:read', '--request-id', requestId]);

    // Act
    const refused = await failureOf(admin(['key', 'create', '--account', account_id, '--scopes', 'entitlements:read', '--request-id', requestId]));

    // Assess
    expect(refused.code).toBe('REQUEST_ID_REUSED');
    expect((await stack.office.keys.list(account_id)).keys).toHaveLength(1);
  });
});
