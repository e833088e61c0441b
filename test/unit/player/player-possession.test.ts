/**
 * What a player-site call proves about its join link before admission (only a proof spends the link's limits):
 * the token, checked without a store call; the claiming browser's credential, one read of the invitation (handed
 * to the operation), looked up only for a cookie value of a credential's shape; nothing else, per route.
 */
import { PLAYER_ROUTES } from '../../../lambdas/player/player-routes';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialDigest } from '../../../lambdas/invitations/claim';
import { invitationKey } from '../../../lambdas/invitations/invitation-store';
import { joinToken } from '../../../lambdas/invitations/join-link';
import { operations as playerOperations, possession } from '../../../lambdas/player/handler';
import { invitationRead, provePossession } from '../../../lambdas/player/player-possession';
import { createPlayerHandler } from '../../../lambdas/player/player-pipeline';
import { PLAYER_CONTRACTS } from '../../../lambdas/player/player-contracts';
import { type RouteDefinition } from '../../../lambdas/shared/http/routes';
import { ROUTES } from '../../../lambdas/service/routes';
import { createPlatform } from '../../../lambdas/shared/platform';
import { documentClient } from '../support/admission-fixtures';

const ddbMock = mockClient(DynamoDBDocumentClient);
const NOW = new Date('2026-11-23T12:30:20.000Z');
const INVITATION = '0196a0b2-7c1d-8e4f-9a0b-1c2d3e4f5a6b';
const OTHER = '0196a0b2-7c1d-8e4f-9a0b-1c2d3e4f5a6c';
const KEY = Buffer.from('k'.repeat(32));
const CREDENTIAL = 'c'.repeat(43);
const platform = createPlatform({
  documentClient,
  tables: { domain: 'domain', access: 'access' },
  edgeGuard: undefined,
  secret: () => ({ versions: async () => ({ current: KEY }) }),
});
const claimed = { ...invitationKey(INVITATION), id: INVITATION, state: 'joined', credential_digest: credentialDigest(CREDENTIAL), claim_started_at: NOW.toISOString() };

const route = (id: string) => ROUTES.find((r) => r.id === id) as RouteDefinition;
const headers = (values: Record<string, string>) => new Map(Object.entries(values).map(([name, value]) => [name, [value]]));
const check = (routeId: string, values: Record<string, string> = {}, body?: unknown) =>
  provePossession({
    route: route(routeId),
    invitationId: INVITATION,
    headers: headers(values),
    body: body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    platform,
    now: NOW,
  });

afterEach(() => ddbMock.reset());

describe('possession of a join link', () => {
  it("proves a view and a claim by the link's token, without a store call", async () => {
    // Prepare
    const token = joinToken(KEY, INVITATION);
    // Act
    const view = await check('player-view', { 'x-join-token': token });
    const claim = await check('player-claim', {}, { token, in_game_name: '', game_account_id: 'x' });
    // Assess
    expect([view.proof, claim.proof]).toEqual(['token', 'token']);
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(0);
  });

  it("proves nothing with another link's token, a token of the wrong shape, a token a claim does not carry in its JSON body, or the token on a message", async () => {
    const token = joinToken(KEY, INVITATION);
    const answers = [
      await check('player-view', { 'x-join-token': joinToken(KEY, OTHER) }),
      await check('player-view', { 'x-join-token': `${token}x` }),
      await check('player-view'),
      await check('player-claim', { 'x-join-token': token }, { in_game_name: 'Steve' }),
      await check('player-claim', {}, `{"token": "${token}"`),
      await check('player-claim', {}, [token]),
      await check('player-claim', {}, { token: [token] }),
      await check('player-message', { 'x-join-token': token }, { text: 'hi', token }),
    ];
    expect(answers.map((a) => a.proof)).toEqual(Array(answers.length).fill('none'));
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(0);
  });

  it("proves a message and a view by the claiming browser's credential in one read, handed to the operation", async () => {
    ddbMock.on(GetCommand, { Key: invitationKey(INVITATION) }).resolves({ Item: claimed });
    const message = await check('player-message', { cookie: `other=1; player_credential=${CREDENTIAL}` });
    const view = await check('player-view', { cookie: `player_credential=${CREDENTIAL}` });
    expect([message.proof, view.proof]).toEqual(['credential', 'credential']);
    expect(invitationRead(message)?.invitation).toMatchObject({ id: INVITATION });
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(2);
  });

  it('proves nothing with a wrong credential, an expired one, or a claim by cookie alone', async () => {
    ddbMock.on(GetCommand, { Key: invitationKey(INVITATION) }).resolves({ Item: claimed });
    const wrong = await check('player-message', { cookie: `player_credential=${'d'.repeat(43)}` });
    const ninetyDaysOn = await provePossession({
      route: route('player-message'),
      invitationId: INVITATION,
      headers: headers({ cookie: `player_credential=${CREDENTIAL}` }),
      body: undefined,
      platform,
      now: new Date(NOW.getTime() + 90 * 86_400_000),
    });
    const claimByCookie = await check('player-claim', { cookie: `player_credential=${CREDENTIAL}` }, { token: 'x'.repeat(43) });
    expect([wrong.proof, ninetyDaysOn.proof, claimByCookie.proof]).toEqual(['none', 'none', 'none']);
    // The wrong credential still read the invitation (the operation reuses it); the claim never looks at cookies.
    expect(invitationRead(wrong)).toEqual({ invitation: claimed });
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(2);
  });

  it('reads nothing for a cookie value that cannot be a credential, and says when the invitation does not exist', async () => {
    ddbMock.on(GetCommand).resolves({});
    for (const cookie of ['player_credential=short', 'player_credential=']) expect(await check('player-message', { cookie })).toEqual({ proof: 'none', invitationId: INVITATION });
    // Two values of the name are refused (the pipeline refuses them before this check; it refuses them too).
    await expect(check('player-message', { cookie: `player_credential=${CREDENTIAL}; player_credential=short` })).rejects.toMatchObject({ code: 'DUPLICATE_CREDENTIAL_COOKIE' });
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(0);
    const missing = await check('player-view', { cookie: `player_credential=${CREDENTIAL}` });
    expect(missing.proof).toBe('none');
    expect(invitationRead(missing)).toEqual({ invitation: undefined });
  });

  it('judges the path\u2019s id: a malformed one proves nothing and names no invitation (admission then refuses the call)', async () => {
    const token = joinToken(KEY, INVITATION);
    const malformed = await provePossession({ route: route('player-view'), invitationId: 'not-an-id', headers: headers({ 'x-join-token': token }), body: undefined, platform, now: NOW });
    expect(malformed).toEqual({ proof: 'none' });
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('is required to build a function that serves player calls', () => {
    expect(() => createPlayerHandler({ operations: playerOperations, contracts: PLAYER_CONTRACTS, routes: PLAYER_ROUTES, platform: () => platform })).toThrow(/player-view, player-claim, player-message need the possession option/);
    expect(() => createPlayerHandler({ operations: playerOperations, contracts: PLAYER_CONTRACTS, routes: PLAYER_ROUTES, possession, platform: () => platform })).not.toThrow();
    expect(() => createPlayerHandler({ operations: { 'player-page': playerOperations['player-page'] }, contracts: PLAYER_CONTRACTS, routes: PLAYER_ROUTES, platform: () => platform })).not.toThrow();
  });
});
