/**
 * The admin CLI's batch mode (scripts/admin-batch.ts): one command a line as a JSON array of its arguments, one answer
 * a line in order with the command's exit status and its result or error, every line run unless --stop-on-error, the
 * batch's stage given to every line, passwords from a named environment variable only. The back office is faked: the
 * bundle's batch against DynamoDB Local is test/integration/admin-bundle.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { BackOfficeError, type BackOffice } from '../../../lambdas/back-office/back-office';
import { environmentPasswords, runBatch, type BatchAnswer } from '../../../scripts/admin-batch';

/** A back office whose organizations are created (or refused, for the name "taken") and archived, and accounts created. */
function fakeOffice() {
  const organizations = {
    create: vi.fn(async (name: string | undefined, requestId: string) => {
      if (name === 'taken') throw new BackOfficeError('CONFLICT', 'Too many races');
      return { partner_id: `org_${name}`, request_id: requestId };
    }),
    archive: vi.fn(async (org: string) => {
      if (org === 'org_missing') throw new BackOfficeError('ORG_NOT_FOUND', 'No such organization');
      return { partner_id: org, status: 'archived' };
    }),
  };
  const accounts = { create: vi.fn(async (_name: unknown, credentials: { email?: string; password?: string }) => ({ account_id: 'acc_1', email: credentials.email })) };
  return { office: { organizations, accounts } as unknown as BackOffice, organizations, accounts };
}

async function* linesOf(...lines: string[]) {
  yield* lines;
}

const json = (...args: string[]) => JSON.stringify(args);

async function batch(lines: string[], options: { stage?: string; stopOnError?: boolean } = {}, env: NodeJS.ProcessEnv = {}) {
  const { office, organizations, accounts } = fakeOffice();
  const answers: BatchAnswer[] = [];
  const officeCalls = vi.fn(() => office);
  const status = await runBatch(linesOf(...lines), options, { office: officeCalls, write: (answer) => void answers.push(answer), passwords: environmentPasswords(env) });
  return { status, answers, organizations, accounts, officeCalls };
}

describe('runBatch', () => {
  it('runs every line in order, answers each with its status and result or error, and exits 1 when one failed', async () => {
    // Prepare
    const lines = [
      json('org', 'create', '--name', 'acme', '--request-id', 'seed-org-acme'),
      json('org', 'archive', '--org', 'org_missing'),
      '',
      json('org', 'archive'),
      json('org', 'create', '--name', 'beta', '--request-id', 'seed-org-beta'),
    ];

    // Act
    const { status, answers, organizations } = await batch(lines);

    // Assess
    expect(answers).toEqual([
      { line: 1, status: 0, result: { partner_id: 'org_acme', request_id: 'seed-org-acme' }, request_id: 'seed-org-acme' },
      { line: 2, status: 1, error: { code: 'ORG_NOT_FOUND', message: 'No such organization' } },
      { line: 4, status: 2, error: { code: 'USAGE', message: '--org is required' } },
      { line: 5, status: 0, result: { partner_id: 'org_beta', request_id: 'seed-org-beta' }, request_id: 'seed-org-beta' },
    ]);
    expect(status).toBe(1);
    expect(organizations.create.mock.calls.map(([name]) => name)).toEqual(['acme', 'beta']);
  });

  it('exits 0 when every line succeeded, and makes the back office once for all of them', async () => {
    // Act
    const { status, answers, officeCalls } = await batch([json('org', 'create', '--name', 'a'), json('org', 'create', '--name', 'b')]);

    // Assess
    expect(status).toBe(0);
    expect(answers.map((answer) => answer.status)).toEqual([0, 0]);
    expect(officeCalls).toHaveBeenCalledTimes(2);
  });

  it('answers the request id it made for a line given none, so that the line can be run again with it', async () => {
    // Act
    const { answers } = await batch([json('org', 'create', '--name', 'taken')]);

    // Assess
    const [answer] = answers;
    expect(answer.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.error).toEqual({ code: 'CONFLICT', message: expect.stringContaining(`re-run with --request-id ${answer.request_id}`) });
  });

  it('stops after the first failing line with --stop-on-error: the lines after it do not run', async () => {
    // Act
    const { status, answers, organizations } = await batch([json('org', 'create', '--name', 'a'), json('org', 'archive', '--org', 'org_missing'), json('org', 'create', '--name', 'c')], { stopOnError: true });

    // Assess
    expect(status).toBe(1);
    expect(answers.map((answer) => [answer.line, answer.status])).toEqual([
      [1, 0],
      [2, 1],
    ]);
    expect(organizations.create).toHaveBeenCalledOnce();
  });

  it('refuses a line that is not a JSON array of strings, and goes on', async () => {
    // Act
    const { status, answers } = await batch(['org create --name a', '{"args":["org","create"]}', '[]', '["org", 1]', json('org', 'create', '--name', 'a')]);

    // Assess
    expect(answers.map((answer) => [answer.status, answer.error?.code])).toEqual([
      [2, 'USAGE'],
      [2, 'USAGE'],
      [2, 'USAGE'],
      [2, 'USAGE'],
      [0, undefined],
    ]);
    expect(answers[0].error?.message).toMatch(/JSON array/);
    expect(status).toBe(1);
  });

  it('gives the batch’s stage to every line, and refuses a line naming a stage or batch flags of its own', async () => {
    // Act
    const { answers, organizations } = await batch(
      [json('org', 'create', '--name', 'a'), json('org', 'create', '--stage', 'prod'), json('org', 'create', '--stop-on-error'), json('ticket', 'bridge', '--fail', 'on')],
      { stage: 'dev' },
    );

    // Assess
    expect(answers[0].status).toBe(0);
    expect(answers.slice(1).map((answer) => answer.error?.message)).toEqual([
      expect.stringMatching(/^--stage: the batch's command line takes it/),
      expect.stringMatching(/^--stop-on-error: the batch's command line takes it/),
      expect.stringMatching(/ticket bridge is a switch of the local stack/),
    ]);
    expect(organizations.create).toHaveBeenCalledOnce();
  });

  it('reads a line’s password from the environment variable it names, never from standard input or a prompt', async () => {
    // Act
    const { answers, accounts } = await batch(
      [
        json('account', 'create', '--email', 'a@example.com', '--password-env', 'SEED_PASSWORD'),
        json('account', 'create', '--email', 'b@example.com', '--password-stdin'),
        json('account', 'create', '--email', 'c@example.com', '--password-prompt'),
        json('account', 'create', '--email', 'd@example.com', '--password-env', 'UNSET_PASSWORD'),
        json('account', 'create', '--email', 'e@example.com', '--password', 'on the line'),
      ],
      {},
      { SEED_PASSWORD: 'correct horse battery' },
    );

    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([0, 2, 2, 2, 2]);
    expect(accounts.create).toHaveBeenCalledOnce();
    expect(accounts.create.mock.calls[0][1]).toEqual({ email: 'a@example.com', password: 'correct horse battery' });
    expect(answers[1].error?.message).toMatch(/--password-env NAME/);
    expect(answers[3].error?.message).toMatch(/UNSET_PASSWORD \(--password-env\) is not set/);
    expect(answers[4].error?.message).toMatch(/--password is not taken/);
    expect(JSON.stringify(answers)).not.toContain('correct horse battery');
  });
});
