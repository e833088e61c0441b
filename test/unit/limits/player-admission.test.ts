/**
 * The player site's admission: the source IP's and the join link's counters
 * in two conditional updates at once (no standing to re-check), the longest
 * full window answering 429, the other item compensated, a call that proved
 * no possession of the link and a malformed invitation id counted by IP
 * only, and a store that does not answer failing closed.
 */
import { DynamoDBDocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { AdmissionStore } from '../../../lambdas/shared/limits/admission-store';
import { LIMITS } from '../../../lambdas/shared/limits/limits-table';
import { admitPlayerCall, joinLinkKey, playerIpKey } from '../../../lambdas/player/player-admission';
import { WindowMemory } from '../../../lambdas/shared/limits/window-memory';
import { conditionFailed, documentClient, resolveUpdate, throttled, unusedPlaceholders, windowsAt } from '../support/admission-fixtures';

const ddbMock = mockClient(DynamoDBDocumentClient);
const NOW = new Date('2026-11-23T12:30:20.000Z');
const W = windowsAt(NOW);
const INVITATION = '0196a0b2-7c1d-8e4f-9a0b-1c2d3e4f5a6b';
const deps = () => ({ store: new AdmissionStore(documentClient, 'access'), windows: new WindowMemory(), limits: LIMITS, now: NOW });
const updates = () => ddbMock.commandCalls(UpdateCommand).map((call) => call.args[0].input as UpdateCommandInput);

beforeEach(() => ddbMock.reset());

describe('player admission', () => {
  it('counts a claim under the IP and the link (minute, hour and claim windows) with no standing condition', async () => {
    ddbMock.on(UpdateCommand).resolves({ Attributes: {} });
    await admitPlayerCall({ category: 'player-claim', sourceIp: '203.0.113.7', invitationId: INVITATION, possession: true }, deps());
    const [ip, link] = updates();
    expect(ip.Key).toEqual(playerIpKey('203.0.113.7'));
    expect(link.Key).toEqual(joinLinkKey(INVITATION));
    expect(resolveUpdate(ip).update).toContain('q_player_ip_minute');
    expect(resolveUpdate(ip).update).toContain('q_player_ip_hour');
    expect(resolveUpdate(link).update).toMatch(/q_join_link_minute.*q_join_claim_hour/);
    expect(resolveUpdate(link).update).not.toContain('q_join_message');
    // Removed by TTL only after every window it holds has ended.
    expect(resolveUpdate(ip).update).toContain(`ttl = ${NOW.getTime() / 1000 + 2 * 86_400}`);
    for (const update of [ip, link]) {
      expect(resolveUpdate(update).condition).not.toMatch(/status|revoked_at|attribute_exists\(pk\)/);
      expect(unusedPlaceholders(update)).toEqual([]);
    }
  });

  it('answers 429 for a full link window and compensates the IP count', async () => {
    ddbMock
      .on(UpdateCommand, { Key: joinLinkKey(INVITATION) })
      .rejects(conditionFailed({ pk: 'x', q_join_link_minute: { w: W.minute, n: 20 }, q_join_message_hour: { w: W.hour, n: 3 }, q_join_message_day: { w: W.day, n: 3 } }));
    ddbMock.on(UpdateCommand, { Key: playerIpKey('203.0.113.7') }).resolves({ Attributes: {} });
    await expect(admitPlayerCall({ category: 'player-message', sourceIp: '203.0.113.7', invitationId: INVITATION, possession: true }, deps())).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      headers: expect.objectContaining({ 'Retry-After': String(W.minuteEnd - NOW.getTime() / 1000) }),
    });
    const compensation = updates().filter((u) => u.Key?.pk === playerIpKey('203.0.113.7').pk);
    expect(compensation).toHaveLength(2);
    expect(resolveUpdate(compensation[1]).update).toContain('q_player_ip_minute.n = q_player_ip_minute.n - 1');
  });

  it.each(['player-view', 'player-claim', 'player-message'] as const)('counts a %s call that proved no possession of the link by IP only, and lets its operation answer', async (category) => {
    ddbMock.on(UpdateCommand).resolves({ Attributes: {} });
    await admitPlayerCall({ category, sourceIp: '203.0.113.7', invitationId: INVITATION, possession: false }, deps());
    expect(updates().map((u) => u.Key)).toEqual([playerIpKey('203.0.113.7')]);
    expect(resolveUpdate(updates()[0]).update).not.toContain('q_join_');
  });

  it('answers 429 from the IP window alone to a call that proved nothing, whatever the link holds', async () => {
    ddbMock.on(UpdateCommand, { Key: playerIpKey('203.0.113.7') }).rejects(conditionFailed({ pk: 'x', q_player_ip_minute: { w: W.minute, n: 30 } }));
    await expect(admitPlayerCall({ category: 'player-claim', sourceIp: '203.0.113.7', invitationId: INVITATION, possession: false }, deps())).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      headers: expect.objectContaining({ 'X-RateLimit-Policy': 'player-ip-minute' }),
    });
    expect(updates().map((u) => u.Key)).toEqual([playerIpKey('203.0.113.7')]);
  });

  it('counts a malformed invitation id by IP only, then answers INVITE_UNAVAILABLE', async () => {
    ddbMock.on(UpdateCommand).resolves({ Attributes: {} });
    await expect(admitPlayerCall({ category: 'player-view', sourceIp: '203.0.113.7', invitationId: undefined, possession: false }, deps())).rejects.toMatchObject({ code: 'INVITE_UNAVAILABLE' });
    expect(updates().map((u) => u.Key)).toEqual([playerIpKey('203.0.113.7')]);
  });

  it('fails closed with 503 RATE_LIMIT_UNAVAILABLE when the store does not answer', async () => {
    ddbMock.on(UpdateCommand).rejects(throttled());
    await expect(admitPlayerCall({ category: 'player-view', sourceIp: '203.0.113.7', invitationId: INVITATION, possession: true }, deps())).rejects.toMatchObject({ code: 'RATE_LIMIT_UNAVAILABLE', status: 503 });
  });
});
