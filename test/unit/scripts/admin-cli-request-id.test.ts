/**
 * The admin CLI's request ids (scripts/admin-cli.ts): every command that takes `--request-id` runs with one (the
 * operator's, or one the CLI makes and tells before anything is sent), and a failure that leaves the outcome unknown
 * says how to run the same request again. The back office is faked: what it does with the id is tested against
 * DynamoDB Local (test/integration/admin-rerun-*.test.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { BackOfficeError, type BackOffice } from '../../../lambdas/back-office/back-office';
import { describeFailure, OutcomeUnknown, REQUEST_ID_COMMANDS, runAdminCommand, UsageError } from '../../../scripts/admin-cli';

/** A back office whose organization creation records the order of events and answers (or fails) as told. */
function fakeOffice(answer: () => Promise<unknown> = async () => ({ partner_id: 'org_1' })) {
  const order: string[] = [];
  const create = vi.fn(async (..._args: unknown[]) => {
    order.push('sent');
    return answer();
  });
  const office = { organizations: { create }, keys: { revoke: vi.fn() } } as unknown as BackOffice;
  const requestIds = { create: vi.fn(() => 'made-by-the-cli'), announce: vi.fn((id: string) => order.push(`told ${id}`)) };
  return { office, create, requestIds, order };
}

const caught = (run: Promise<unknown>) =>
  run.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('runAdminCommand: request ids', () => {
  it('makes a request id for a command given none, tells it before the back office is called, and passes it on', async () => {
    // Prepare
    const { office, create, requestIds, order } = fakeOffice();

    // Act
    await runAdminCommand(['org', 'create', '--name', 'Org'], office, undefined, requestIds);

    // Assess
    expect(create).toHaveBeenCalledExactlyOnceWith('Org', 'made-by-the-cli');
    expect(order).toEqual(['told made-by-the-cli', 'sent']);
  });

  it('passes the operator’s request id as given, and tells nothing', async () => {
    // Prepare
    const { office, create, requestIds } = fakeOffice();

    // Act
    await runAdminCommand(['org', 'create', '--request-id', 'ops-2026-07-01_a'], office, undefined, requestIds);

    // Assess
    expect(create).toHaveBeenCalledExactlyOnceWith(undefined, 'ops-2026-07-01_a');
    expect(requestIds.create).not.toHaveBeenCalled();
    expect(requestIds.announce).not.toHaveBeenCalled();
  });

  it.each([
    { name: 'a command that takes none', argv: ['key', 'revoke', '--key-id', 'key_1', '--request-id', 'abcdefgh'], message: /key revoke takes no --request-id/ },
    { name: 'a request id too short', argv: ['org', 'create', '--request-id', 'short'], message: /--request-id must be 8–128/ },
    { name: 'a request id with a space', argv: ['org', 'create', '--request-id', 'two words here'], message: /--request-id must be 8–128/ },
  ])('refuses $name as a usage error, telling and sending nothing', async ({ argv, message }) => {
    // Prepare
    const { office, create, requestIds } = fakeOffice();

    // Act
    const error = await caught(runAdminCommand(argv, office, undefined, requestIds));

    // Assess
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect(create).not.toHaveBeenCalled();
    expect(requestIds.announce).not.toHaveBeenCalled();
  });

  it('describes a failure that leaves the outcome unknown with the request id to run again, under the failure’s own code', async () => {
    // Prepare
    const lost = Object.assign(new Error('Socket timed out'), { name: 'TimeoutError' });
    const { office, requestIds } = fakeOffice(async () => {
      throw lost;
    });

    // Act
    const error = await caught(runAdminCommand(['org', 'create'], office, undefined, requestIds));

    // Assess
    expect(error).toBeInstanceOf(OutcomeUnknown);
    expect(describeFailure(error)).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'Socket timed out. The change may have been made: re-run with --request-id made-by-the-cli to finish it or learn its result (it is made once)',
    });
  });

  it('passes a refusal of the back office through as it is: nothing was done', async () => {
    // Prepare
    const refusal = new BackOfficeError('REQUEST_ID_REUSED', 'Request id ops-1234 was already used');
    const { office } = fakeOffice(async () => {
      throw refusal;
    });

    // Act
    const error = await caught(runAdminCommand(['org', 'create', '--request-id', 'ops-1234'], office));

    // Assess
    expect(error).toBe(refusal);
  });

  it('lists every command the operator is told may be re-run with a request id', () => {
    // Assess
    expect([...REQUEST_ID_COMMANDS].sort()).toEqual(
      ['account create', 'entitlement grant', 'entitlement use', 'key create', 'member remove', 'org create', 'record archive', 'record delete', 'record move', 'record put', 'ticket assign', 'ticket message', 'ticket status'].sort(),
    );
  });
});
