/**
 * The player function's IAM policy against what its code really does. DynamoDB Local enforces no
 * IAM, so a key prefix the code writes and the policy's `dynamodb:LeadingKeys` condition misses
 * would pass every other test and fail only in AWS. Here the player handler runs through the local
 * front on a document client that records every item it touches (each item of a transaction as
 * its own action, as IAM authorizes them); every recorded call must be allowed by a statement of
 * the player role in the synthesized template: its action, its table (or index), and, where the
 * statement has one, its leading-key condition.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartnerApiHandler } from '../../lambdas/shared/http/partner-api-pipeline';
import { createPlayerHandler } from '../../lambdas/player/player-pipeline';
import { definition as invitationsFunction } from '../../lambdas/invitations/handler';
import { definition as playerFunction } from '../../lambdas/player/handler';
import { LIMITS } from '../../lambdas/shared/limits/limits-table';
import { createPlatform, type Platform } from '../../lambdas/shared/platform';
import { physicalTableName, TABLE_IDS, type TableId } from '../../lambdas/shared/storage/table-definitions';
import { HANDLERS } from '../../local/handlers';
import { functionLogicalId, resources, stage } from '../infra/support';
import { recordingClient, type RecordedCall } from '../support/recording-client';
import { bearer, createOrgWithManagerKey, startTestStack, type TestStack } from '../support/test-stack';
import { localPlatform } from '../support/local-platform';

let stack: TestStack;
let platform: Platform;
const calls: RecordedCall[] = [];

beforeAll(async () => {
  const raised = LIMITS.map((l) => (l.kind === 'edge' ? l : { ...l, limit: 100_000 }));
  const player = createPlayerHandler({ ...playerFunction, platform: () => platform });
  const invitations = createPartnerApiHandler({ ...invitationsFunction, platform: () => localPlatform({ limits: raised }) });
  stack = await startTestStack({ handlers: { ...HANDLERS, player, invitations } });
  platform = createPlatform({ limits: raised, edgeGuard: undefined, documentClient: recordingClient(stack.dynamoEndpoint, calls) });
});
afterAll(() => stack?.stop());

type Statement = { Action: string | string[]; Resource: unknown; Condition?: { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys'?: string[] } } };

/** The player role's DynamoDB statements in the synthesized dev stage. */
function playerStatements(): Statement[] {
  const { statelessTemplate } = stage('dev');
  const fn = resources(statelessTemplate, 'AWS::Lambda::Function')[functionLogicalId(statelessTemplate, 'player')];
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return Object.values(resources(statelessTemplate, 'AWS::IAM::Policy'))
    .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    .filter((statement) => JSON.stringify(statement.Action).includes('dynamodb:'));
}

/** IAM's StringLike: `*` any run of characters, `?` one. */
const like = (pattern: string, value: string) =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's').test(value);

function allows(statement: Statement, call: RecordedCall, table: TableId): boolean {
  if (![statement.Action].flat().includes(call.action)) return false;
  const resource = JSON.stringify(statement.Resource);
  const target = `:table/${physicalTableName('dev', table)}${call.indexName ? `/index/${call.indexName}` : ''}"`;
  if (!resource.includes(target)) return false;
  const leading = statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
  return leading === undefined || (call.pk !== undefined && leading.some((pattern) => like(pattern, call.pk!)));
}

describe('the player function\'s IAM policy covers every item its code touches', () => {
  it('views, claims, reads and posts messages, refuses unknown and malformed links: every call allowed, the access table only on counter items', async () => {
    // Prepare: an invitation created through the partner API (not recorded: another function).
    const org = await createOrgWithManagerKey(stack.office, ['invitations:read', 'invitations:write', 'tickets:read']);
    const created = await stack.call(`/partners/${org.partner_id}/invitations`, {
      method: 'POST',
      headers: { ...bearer(org.key.key), 'Content-Type': 'application/json', 'Idempotency-Key': `player-iam-${Date.now()}` },
      body: JSON.stringify({ game: 'minecraft' }),
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { id: string; link: string } };
    const [page, fragment] = data.link.split('#');
    const token = new URLSearchParams(fragment).get('token') as string;
    const json = { 'Content-Type': 'application/json' };

    // Act: the player's whole journey, and the calls an outsider makes.
    expect((await fetch(page)).status).toBe(200);
    expect((await fetch(`${page}/view`, { headers: { 'X-Join-Token': token } })).status).toBe(200);
    const claimed = await fetch(`${page}/claim`, { method: 'POST', headers: json, body: JSON.stringify({ token, in_game_name: 'Steve', game_account_id: 'steve-1' }) });
    expect(claimed.status).toBe(201);
    const cookie = (claimed.headers.get('set-cookie') as string).split(';')[0];
    expect((await fetch(`${page}/view`, { headers: { Cookie: cookie } })).status).toBe(200);
    expect((await fetch(`${page}/messages`, { method: 'POST', headers: { ...json, Cookie: cookie }, body: JSON.stringify({ text: 'hello' }) })).status).toBe(201);
    expect((await fetch(`${page}/claim`, { method: 'POST', headers: json, body: JSON.stringify({ token: 'x'.repeat(43), in_game_name: 'Alex', game_account_id: 'alex-1' }) })).status).toBeGreaterThanOrEqual(400);
    const base = page.slice(0, page.lastIndexOf('/'));
    expect((await fetch(`${base}/not-an-invitation/view`)).status).toBe(404);

    // Assess
    const tableIds = new Map(TABLE_IDS.map((id) => [platform.tables[id], id] as const));
    expect(calls.length).toBeGreaterThan(5);
    const statements = playerStatements();
    const refused = calls.filter((call) => {
      const table = tableIds.get(call.tableName);
      return table === undefined || !statements.some((statement) => allows(statement, call, table));
    });
    expect(refused).toEqual([]);
    // The access table: only the admission's counter writes.
    const onAccess = calls.filter((call) => tableIds.get(call.tableName) === 'access');
    expect(onAccess.length).toBeGreaterThan(0);
    expect(new Set(onAccess.map((call) => call.action))).toEqual(new Set(['dynamodb:UpdateItem']));
    expect(new Set(onAccess.map((call) => call.pk!.replace(/#[^#]*$/, '#')))).toEqual(new Set(['PLAYER#IP#', 'PLAYER#LINK#']));
  });
});
