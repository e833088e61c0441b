/**
 * The sign-in function's IAM policy against what its code really does (issue 32, finding 5: signing in moved out of the
 * settings function, whose policy covered it). DynamoDB Local enforces no IAM, so an action the code needs and the
 * sign-in role lacks would pass every other test and fail only in AWS. Here the sign-in handler runs through the local
 * front on a document client that records every item it touches (each item of a transaction as its own action, as IAM
 * authorizes them); every recorded call must be allowed by a statement of the sign-in role in the synthesized
 * template, and the function may only read and write single items of the access table (no Query, no Delete, no index).
 * With two-factor on, the seed is opened under the sign-in function's own key use (the local sealer refuses a function
 * its role does not let in: local/sealing.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeAt } from '../../lambdas/back-office/two-factor';
import { createSettingsHandler } from '../../lambdas/settings/settings-pipeline';
import { definition as signInFunction } from '../../lambdas/sign-in/handler';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { createPlatform, type Platform } from '../../lambdas/shared/platform';
import { physicalTableName, TABLE_IDS, type TableId } from '../../lambdas/shared/storage/table-definitions';
import { HANDLERS } from '../../local/handlers';
import { functionLogicalId, resources, stage } from '../infra/support';
import { SettingsBrowser } from '../support/settings-browser';
import { recordingClient, type RecordedCall } from '../support/recording-client';
import { startTestStack, type TestStack } from '../support/test-stack';

let stack: TestStack;
let platform: Platform;
const calls: RecordedCall[] = [];
const PASSWORD = 'sign-in-data-access-1';
/** The sign-in function's clock, two TOTP steps ahead: a code it accepts is later than the one that confirmed enrolment. */
const ahead = () => new Date(Date.now() + 60_000);


beforeAll(async () => {
  const signIn = createSettingsHandler({ ...signInFunction, platform: () => platform });
  stack = await startTestStack({ handlers: { ...HANDLERS, 'sign-in': signIn } });
  // Quotas out of reach: the journeys below sign in, and fail to, more than one address may a minute.
  const raised = LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 }));
  platform = createPlatform({ limits: raised, edgeGuard: undefined, clock: ahead, documentClient: recordingClient(stack.dynamoEndpoint, calls) });
});
afterAll(() => stack?.stop());

type Statement = { Action: string | string[]; Resource: unknown };

/** The sign-in role's DynamoDB statements in the synthesized dev stage. */
function signInStatements(): Statement[] {
  const { statelessTemplate } = stage('dev');
  const fn = resources(statelessTemplate, 'AWS::Lambda::Function')[functionLogicalId(statelessTemplate, 'sign-in')];
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return Object.values(resources(statelessTemplate, 'AWS::IAM::Policy'))
    .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    .filter((statement) => JSON.stringify(statement.Action).includes('dynamodb:'));
}

function allows(statement: Statement, call: RecordedCall, table: TableId): boolean {
  if (![statement.Action].flat().includes(call.action)) return false;
  const target = `:table/${physicalTableName('dev', table)}${call.indexName ? `/index/${call.indexName}` : ''}"`;
  return JSON.stringify(statement.Resource).includes(target);
}

describe("the sign-in function's IAM policy covers every item its code touches", () => {
  it('signs in, with and without two-factor, and refuses wrong passwords, wrong codes and unknown addresses: every call allowed, single items of access only', async () => {
    // Prepare: two accounts (not recorded: the operator's client), one with two-factor on.
    const plain = { email: `sign-in-iam-${Date.now()}@example.com` };
    await stack.office.accounts.create('Plain', { email: plain.email, password: PASSWORD });
    const guarded = { email: `sign-in-iam-2fa-${Date.now()}@example.com` };
    const { account_id } = await stack.office.accounts.create('Guarded', { email: guarded.email, password: PASSWORD });
    const { secret } = await stack.office.signIn.enrolTwoFactor(account_id, PASSWORD);
    await stack.office.signIn.confirmTwoFactor(account_id, PASSWORD, await codeAt(secret, new Date()));
    const browser = () => new SettingsBrowser(stack);

    // Act: every outcome of signing in.
    expect((await browser().signIn(plain.email, PASSWORD)).status).toBe(200);
    expect((await browser().signIn(plain.email, 'not-the-password-1')).status).toBe(401);
    expect((await browser().signIn(`nobody-${Date.now()}@example.com`, PASSWORD)).status).toBe(401);
    expect((await browser().signIn('not an address', PASSWORD)).status).toBe(401);
    expect((await browser().signIn(guarded.email, PASSWORD)).status).toBe(401);
    expect((await browser().signIn(guarded.email, PASSWORD, '000000')).status).toBe(401);
    expect((await browser().signIn(guarded.email, PASSWORD, await codeAt(secret, ahead()))).status).toBe(200);

    // Assess
    const tableIds = new Map(TABLE_IDS.map((id) => [platform.tables[id], id] as const));
    expect(calls.length).toBeGreaterThan(10);
    const statements = signInStatements();
    const refused = calls.filter((call) => {
      const table = tableIds.get(call.tableName);
      return table === undefined || !statements.some((statement) => allows(statement, call, table));
    });
    expect(refused).toEqual([]);
    expect(new Set(calls.map((call) => tableIds.get(call.tableName)))).toEqual(new Set(['access']));
    expect(calls.filter((call) => call.indexName !== undefined)).toEqual([]);
    expect([...new Set(calls.map((call) => call.action))].sort()).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
  });
});
