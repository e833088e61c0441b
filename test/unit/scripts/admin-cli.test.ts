/**
 * The admin command line: commands and flags map onto back-office calls,
 * usage errors are told apart from back-office and AWS failures, and each
 * failure is described as one `{code, message}`.
 */
import { describe, expect, it, vi } from 'vitest';
import { BackOfficeError, type BackOffice } from '../../../lambdas/back-office/back-office';
import { describeFailure, runAdminCommand, USAGE, UsageError } from '../../../scripts/admin-cli';

const OFFICE_METHODS = [
  'accounts.create',
  'accounts.deactivate',
  'accounts.reactivate',
  'accounts.resetPassword',
  'signIn.resetTwoFactor',
  'accounts.setPassword',
  'organizations.create',
  'organizations.archive',
  'organizations.restore',
  'memberships.set',
  'memberships.remove',
  'keys.createIdempotent',
  'keys.revoke',
  'keys.list',
  'records.put',
  'records.delete',
  'records.move',
  'records.events',
  'entitlements.grant',
  'entitlements.use',
  'entitlements.refund',
  'webhooks.list',
  'webhooks.deactivate',
  'webhooks.deliveriesOf',
  'webhooks.delivery',
  'webhooks.requeue',
  'webhooks.fanOutEvent',
] as const;

type OfficeMethod = (typeof OFFICE_METHODS)[number];

/** A back office whose every operation (`concept.verb`) records its arguments and answers `{ method }`. */
function fakeOffice() {
  const calls = Object.fromEntries(OFFICE_METHODS.map((name) => [name, vi.fn(async () => ({ method: name }))])) as Record<
    OfficeMethod,
    ReturnType<typeof vi.fn>
  >;
  const office: Record<string, Record<string, unknown>> = {};
  for (const name of OFFICE_METHODS) {
    const [concept, verb] = name.split('.');
    (office[concept] ??= {})[verb] = calls[name];
  }
  return { office: office as unknown as BackOffice, calls };
}

/** The request id a run makes when given none (the commands that take one get it as their last argument). */
const MADE = 'made-request-id';
const requestIds = { create: () => MADE, announce: () => undefined };

async function usageError(argv: string[]) {
  const { office, calls } = fakeOffice();
  const error = await runAdminCommand(argv, office).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  for (const method of OFFICE_METHODS) expect(calls[method]).not.toHaveBeenCalled();
  return error as UsageError;
}

describe('runAdminCommand: commands and flags', () => {
  it.each<{ argv: string[]; method: OfficeMethod; args: unknown[] }>([
    { argv: ['account', 'create'], method: 'accounts.create', args: [undefined, { email: undefined, password: undefined }, MADE] },
    { argv: ['account', 'create', '--name', 'Acme'], method: 'accounts.create', args: ['Acme', { email: undefined, password: undefined }, MADE] },
    {
      argv: ['account', 'create', '--email', 'a@example.com', '--password-stdin'],
      method: 'accounts.create',
      args: [undefined, { email: 'a@example.com', password: 'from stdin' }, MADE],
    },
    {
      argv: ['account', 'create', '--email', 'a@example.com', '--password-prompt'],
      method: 'accounts.create',
      args: [undefined, { email: 'a@example.com', password: 'from prompt' }, MADE],
    },
    { argv: ['account', 'set-password', '--account', 'acc_1'], method: 'accounts.setPassword', args: ['acc_1', 'from prompt'] },
    { argv: ['account', 'set-password', '--account', 'acc_1', '--password-stdin'], method: 'accounts.setPassword', args: ['acc_1', 'from stdin'] },
    { argv: ['account', 'reset-password', '--account', 'acc_1', '--clear-two-factor'], method: 'accounts.resetPassword', args: ['acc_1', { clearTwoFactor: true }] },
    { argv: ['account', 'reset-two-factor', '--account', 'acc_1'], method: 'signIn.resetTwoFactor', args: ['acc_1'] },
    { argv: ['account', 'deactivate', '--account', 'acc_1'], method: 'accounts.deactivate', args: ['acc_1'] },
    { argv: ['account', 'reactivate', '--account', 'acc_1'], method: 'accounts.reactivate', args: ['acc_1'] },
    { argv: ['account', 'reset-password', '--account=acc_1'], method: 'accounts.resetPassword', args: ['acc_1', { clearTwoFactor: undefined }] },
    { argv: ['org', 'create', '--name', 'Org'], method: 'organizations.create', args: ['Org', MADE] },
    { argv: ['org', 'archive', '--org', 'org_1'], method: 'organizations.archive', args: ['org_1'] },
    { argv: ['org', 'restore', '--org', 'org_1'], method: 'organizations.restore', args: ['org_1'] },
    { argv: ['member', 'set', '--org', 'org_1', '--account', 'acc_1', '--role', 'manager'], method: 'memberships.set', args: ['org_1', 'acc_1', 'manager'] },
    { argv: ['member', 'set', '--role', 'member', '--account', 'acc_1', '--org', 'org_1'], method: 'memberships.set', args: ['org_1', 'acc_1', 'member'] },
    { argv: ['member', 'remove', '--org', 'org_1', '--account', 'acc_1'], method: 'memberships.remove', args: ['org_1', 'acc_1', MADE] },
    { argv: ['key', 'revoke', '--key-id', 'key_1'], method: 'keys.revoke', args: ['key_1'] },
    { argv: ['key', 'list', '--account', 'acc_1'], method: 'keys.list', args: ['acc_1'] },
    { argv: ['record', 'put', '--org', 'org_1', '--json', '{"uuid":"USS-12345678-abcdefabcdef"}'], method: 'records.put', args: ['org_1', { uuid: 'USS-12345678-abcdefabcdef' }, MADE] },
    { argv: ['record', 'delete', '--org', 'org_1', '--record', 'rec_1'], method: 'records.delete', args: ['org_1', 'rec_1', MADE] },
    { argv: ['record', 'move', '--record', 'rec_1', '--to', 'org_2'], method: 'records.move', args: ['rec_1', 'org_2', MADE] },
    { argv: ['events', 'list', '--org', 'org_1'], method: 'records.events', args: ['org_1', undefined] },
    { argv: ['events', 'list', '--org', 'org_1', '--after', 'evt_1'], method: 'records.events', args: ['org_1', 'evt_1'] },
    {
      argv: ['entitlement', 'grant', '--owner', 'partner:org_1', '--game', 'fps', '--units', '5', '--expires-at', '2027-01-01T00:00:00Z'],
      method: 'entitlements.grant',
      args: [{ owner: 'partner:org_1', game: 'fps', units: 5, unlimited: undefined, startsAt: undefined, expiresAt: '2027-01-01T00:00:00Z', permanent: undefined }, MADE],
    },
    { argv: ['entitlement', 'use', '--owner', 'account:acc_1', '--game', 'minecraft', '--units', '2'], method: 'entitlements.use', args: ['account:acc_1', 'minecraft', 2, MADE] },
    { argv: ['entitlement', 'refund', '--use', 'use_1'], method: 'entitlements.refund', args: ['use_1'] },
    { argv: ['webhook', 'list', '--org', 'org_1'], method: 'webhooks.list', args: ['org_1'] },
    { argv: ['webhook', 'deactivate', '--webhook', 'wh_1'], method: 'webhooks.deactivate', args: ['wh_1'] },
    { argv: ['delivery', 'list', '--webhook', 'wh_1'], method: 'webhooks.deliveriesOf', args: ['wh_1', undefined] },
    { argv: ['delivery', 'list', '--webhook', 'wh_1', '--status', 'retrying'], method: 'webhooks.deliveriesOf', args: ['wh_1', 'retrying'] },
    { argv: ['delivery', 'show', '--delivery', 'dlv_1'], method: 'webhooks.delivery', args: ['dlv_1', undefined] },
    { argv: ['delivery', 'show', '--delivery', 'dlv_1', '--webhook', 'wh_1'], method: 'webhooks.delivery', args: ['dlv_1', 'wh_1'] },
    { argv: ['delivery', 'requeue', '--delivery', 'dlv_1'], method: 'webhooks.requeue', args: ['dlv_1', undefined] },
    { argv: ['delivery', 'requeue', 'dlv_1'], method: 'webhooks.requeue', args: ['dlv_1', undefined] },
    { argv: ['delivery', 'show', 'dlv_1', '--webhook', 'wh_1'], method: 'webhooks.delivery', args: ['dlv_1', 'wh_1'] },
    { argv: ['event', 'fan-out', 'evt_1', '--org', 'org_1'], method: 'webhooks.fanOutEvent', args: ['org_1', 'evt_1'] },
    { argv: ['event', 'fan-out', '--org', 'org_1', '--event', 'evt_1'], method: 'webhooks.fanOutEvent', args: ['org_1', 'evt_1'] },
    { argv: ['account', 'create', '--stage', 'dev'], method: 'accounts.create', args: [undefined, { email: undefined, password: undefined }, MADE] },
  ])('maps `$argv` to $method', async ({ argv, method, args }) => {
    // Prepare
    const { office, calls } = fakeOffice();

    // Act
    const result = await runAdminCommand(argv, office, { read: async (from) => `from ${from}` }, requestIds);

    // Assess
    expect(result).toEqual({ method });
    expect(calls[method]).toHaveBeenCalledExactlyOnceWith(...args);
  });

  it('never takes a password on the command line (shell history, ps), and asks for one only where it is used', async () => {
    const { office, calls } = fakeOffice();
    const read = vi.fn(async () => 'a long passphrase');

    await expect(runAdminCommand(['account', 'set-password', '--account', 'acc_1', '--password', 'hunter2hunter2'], office, { read })).rejects.toThrow(/--password is not taken/);
    await expect(runAdminCommand(['account', 'create', '--email', 'a@example.com', '--password=hunter2hunter2'], office, { read })).rejects.toBeInstanceOf(UsageError);
    await expect(runAdminCommand(['account', 'create', '--password-stdin'], office, { read })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await runAdminCommand(['account', 'create', '--email', 'a@example.com'], office, { read }, requestIds);

    expect(read).not.toHaveBeenCalled();
    expect(calls['accounts.setPassword']).not.toHaveBeenCalled();
    expect(calls['accounts.create']).toHaveBeenCalledExactlyOnceWith(undefined, { email: 'a@example.com', password: undefined }, MADE);
  });

  it('maps key create flags: organization, trimmed scope list, days', async () => {
    // Prepare
    const { office, calls } = fakeOffice();

    // Act
    await runAdminCommand(['key', 'create', '--account', 'acc_1', '--org', 'org_1', '--scopes', 'records:read, tickets:read,', '--days', '30'], office, undefined, requestIds);

    // Assess
    expect(calls['keys.createIdempotent']).toHaveBeenCalledExactlyOnceWith(
      {
        accountId: 'acc_1',
        partnerId: 'org_1',
        scopes: ['records:read', 'tickets:read'],
        days: 30,
        permanent: undefined,
      },
      MADE,
    );
  });

  it('maps key create --permanent to a permanent personal key', async () => {
    // Prepare
    const { office, calls } = fakeOffice();

    // Act
    await runAdminCommand(['key', 'create', '--account', 'acc_1', '--scopes', 'public:read', '--permanent'], office, undefined, requestIds);

    // Assess
    expect(calls['keys.createIdempotent']).toHaveBeenCalledExactlyOnceWith(
      {
        accountId: 'acc_1',
        partnerId: undefined,
        scopes: ['public:read'],
        days: undefined,
        permanent: true,
      },
      MADE,
    );
  });

  it.each(['1.5', '30d', 'ten', '', '1e2'])('refuses --days %j with INVALID_EXPIRY without calling the back office', async (days) => {
    // Prepare
    const { office, calls } = fakeOffice();

    // Act
    const error = await runAdminCommand(['key', 'create', '--account', 'acc_1', '--scopes', 'public:read', '--days', days], office).then(
      () => undefined,
      (e: unknown) => e,
    );

    // Assess
    expect(error).toBeInstanceOf(BackOfficeError);
    expect((error as BackOfficeError).code).toBe('INVALID_EXPIRY');
    expect(calls['keys.createIdempotent']).not.toHaveBeenCalled();
  });
});

describe('runAdminCommand: usage errors', () => {
  it.each<{ name: string; argv: string[]; message: RegExp }>([
    { name: 'no command', argv: [], message: /No command given/ },
    { name: 'an unknown group', argv: ['webhook', 'create'], message: /Unknown command: webhook create/ },
    { name: 'an unknown verb', argv: ['account', 'delete', '--account', 'acc_1'], message: /Unknown command: account delete/ },
    { name: 'a group without verb', argv: ['account'], message: /Unknown command: account$/ },
    { name: 'extra arguments', argv: ['key', 'list', 'acc_1', '--account', 'acc_1'], message: /Unexpected arguments: acc_1/ },
    { name: 'an unknown flag', argv: ['key', 'list', '--account', 'acc_1', '--verbose'], message: /verbose/ },
    { name: 'a flag without its value', argv: ['key', 'list', '--account'], message: /account/ },
    { name: 'a missing --account', argv: ['account', 'deactivate'], message: /--account is required/ },
    { name: 'a missing --org', argv: ['org', 'archive'], message: /--org is required/ },
    { name: 'a missing --key-id', argv: ['key', 'revoke'], message: /--key-id is required/ },
    { name: 'a missing --webhook', argv: ['webhook', 'deactivate'], message: /--webhook is required/ },
    { name: 'a missing --delivery', argv: ['delivery', 'requeue', '--webhook', 'wh_1'], message: /--delivery is required/ },
    { name: 'a missing --event', argv: ['event', 'fan-out', '--org', 'org_1'], message: /--event is required/ },
    { name: 'two different deliveries', argv: ['delivery', 'show', 'dlv_1', '--delivery', 'dlv_2'], message: /Two different values of --delivery/ },
    { name: 'a second positional', argv: ['delivery', 'show', 'dlv_1', 'dlv_2'], message: /Unexpected arguments: dlv_1 dlv_2/ },
    { name: 'a positional where none is taken', argv: ['delivery', 'list', 'wh_1'], message: /Unexpected arguments: wh_1/ },
    { name: 'a missing --role', argv: ['member', 'set', '--org', 'org_1', '--account', 'acc_1'], message: /--role is required/ },
    { name: 'an unknown role', argv: ['member', 'set', '--org', 'org_1', '--account', 'acc_1', '--role', 'owner'], message: /--role must be manager or member/ },
    { name: 'missing --scopes', argv: ['key', 'create', '--account', 'acc_1'], message: /--scopes is required/ },
    { name: 'empty --scopes', argv: ['key', 'create', '--account', 'acc_1', '--scopes', ''], message: /--scopes is required/ },
  ])('refuses $name as a usage error', async ({ argv, message }) => {
    // Act
    const error = await usageError(argv);

    // Assess
    expect(error.message).toMatch(message);
    expect(error.code).toBe('USAGE');
  });
});

describe('describeFailure', () => {
  it('describes a usage error with the usage text', () => {
    // Act
    const failure = describeFailure(new UsageError('--account is required'));

    // Assess
    expect(failure).toEqual({ code: 'USAGE', message: `--account is required\n${USAGE}` });
  });

  it('passes a back-office error through with its code and message', () => {
    // Act
    const failure = describeFailure(new BackOfficeError('KEY_LIMIT', 'At most 20 unexpired, unrevoked keys per account'));

    // Assess
    expect(failure).toEqual({ code: 'KEY_LIMIT', message: 'At most 20 unexpired, unrevoked keys per account' });
  });

  it('explains a missing table as an undeployed stage', () => {
    // Prepare
    const error = Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });

    // Act
    const failure = describeFailure(error);

    // Assess
    expect(failure).toEqual({ code: 'TABLE_NOT_FOUND', message: 'The stage has no such table: is it deployed?' });
  });

  it('explains missing AWS credentials', () => {
    // Prepare
    const error = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });

    // Act
    const failure = describeFailure(error);

    // Assess
    expect(failure.code).toBe('AWS_CREDENTIALS');
    expect(failure.message).not.toContain('Could not load');
  });

  it.each([
    { name: 'an unexpected error', error: new TypeError('x is undefined') },
    { name: 'a thrown string', error: 'boom' },
    { name: 'undefined', error: undefined },
  ])('describes $name as INTERNAL_ERROR', ({ error }) => {
    // Act
    const failure = describeFailure(error);

    // Assess
    expect(failure.code).toBe('INTERNAL_ERROR');
    expect(typeof failure.message).toBe('string');
  });
});
