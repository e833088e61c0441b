/**
 * The back office over a mocked document client (aws-sdk-client-mock), for
 * the unit tests of each back-office concept: the mock, the office at a
 * fixed clock, the failures DynamoDB answers with, and what was sent.
 */
import { ConditionalCheckFailedException, DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { createBackOffice, BackOfficeError } from '../../../lambdas/back-office/back-office';
import { membershipKey, type MembershipItem } from '../../../lambdas/shared/identity/access-items';
import { ACCOUNT_ID, NOW, PARTNER_ID, type StoredItem } from '../support/identity-fixtures';

export const TABLE = 'access-table';

/**
 * The mocked client and a back office on it at NOW. Registers the hooks that reset the mock after
 * each test and take the waiting out of retries.
 */
export function useMockedBackOffice() {
  const ddbMock = mockClient(DynamoDBDocumentClient);
  const office = createBackOffice(
    DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } })),
    TABLE,
    () => NOW,
  );
  beforeEach(() => {
    // No waiting between attempts of a read-modify-write.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    // A Query a test does not answer finds nothing (an organization's members, an account's organization entries).
    ddbMock.on(QueryCommand).resolves({ Items: [] });
  });
  afterEach(() => {
    ddbMock.reset();
    vi.restoreAllMocks();
  });
  const transactions = (): TransactWriteCommandInput[] => ddbMock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input);
  return { ddbMock, office, transactions };
}

export const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

/** A cancelled transaction whose last item failed for `code` (a failed condition, or a conflict with another write). */
export const transactionCanceled = (code: 'ConditionalCheckFailed' | 'TransactionConflict' = 'ConditionalCheckFailed') =>
  new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, ${code}]`,
    $metadata: {},
    CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: code }],
  });

/** The BackOfficeError a promise rejects with (the test fails if it resolves or rejects with anything else). */
export async function failure(promise: Promise<unknown>): Promise<BackOfficeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BackOfficeError);
  return error as BackOfficeError;
}

/** A membership item as the back office writes it: a plain member unless overridden. */
export function membershipItem(overrides: Partial<MembershipItem> = {}): StoredItem {
  const membership: MembershipItem = { partner_id: PARTNER_ID, account_id: ACCOUNT_ID, role: 'member', updated_at: '2025-01-01T00:00:00.000Z', ...overrides };
  return { ...membershipKey(membership.partner_id, membership.account_id), type: 'membership', ...membership };
}
