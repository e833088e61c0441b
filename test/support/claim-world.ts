/**
 * What the claim's tests share: a fresh invitation of a fresh organization, created through the partner API as an
 * integration would (its id, its page: the link without its fragment, and its token), the player's data a claim
 * sends, and a submission id as the join page makes one.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { bearer, createOrgWithManagerKey, type TestStack } from './test-stack';

export const CLAIMING_PLAYER = { in_game_name: 'Steve', game_account_id: '069a79f4-44e9-4726-a5be-fca90e38aaf5' };

/** A submission id as the join page makes one: 32 random bytes, base64url. */
export const submissionId = () => randomBytes(32).toString('base64url');

let serial = 0;

/** A fresh invitation to claim, with `notes` (none when undefined). */
export async function invitationToClaim(stack: TestStack, notes?: string) {
  const org = await createOrgWithManagerKey(stack.office, ['invitations:read', 'invitations:write', 'tickets:read']);
  const response = await stack.call(`/partners/${org.partner_id}/invitations`, {
    method: 'POST',
    headers: { ...bearer(org.key.key), 'Content-Type': 'application/json', 'Idempotency-Key': `claim-world-${(serial += 1)}-${Date.now()}` },
    body: JSON.stringify({ game: 'minecraft', ...(notes === undefined ? {} : { notes }) }),
  });
  expect(response.status).toBe(201);
  const { data } = (await response.json()) as { data: { id: string; link: string } };
  const [page, fragment] = data.link.split('#');
  return { org, id: data.id, page, token: new URLSearchParams(fragment).get('token') as string };
}
