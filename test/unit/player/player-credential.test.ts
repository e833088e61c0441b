/** The player's cookie: its attributes, reading it back, and the credential's 90 days counted from the claim. */
import { describe, expect, it } from 'vitest';
import { credentialDigest } from '../../../lambdas/invitations/claim';
import type { InvitationItem } from '../../../lambdas/invitations/invitation-model';
import { holdsCredential, playerCookie, presentedCredentials } from '../../../lambdas/player/player-credential';

const claimedAt = new Date('2026-11-01T10:00:00.000Z');
const item = { credential_digest: credentialDigest('secret-credential'), claim_started_at: claimedAt.toISOString() } as InvitationItem;
const at = (days: number) => new Date(claimedAt.getTime() + days * 86_400_000);

describe('the player cookie', () => {
  it('is HttpOnly, Secure, SameSite=Strict, scoped to the invitation path, 90 days at most', () => {
    expect(playerCookie('abc', '/v1/join/x')).toBe('player_credential=abc; Path=/v1/join/x; Max-Age=7776000; HttpOnly; Secure; SameSite=Strict');
  });

  it('reads the credential among other cookies and Cookie headers, and nothing from look-alike names', () => {
    expect(presentedCredentials(['a=1; player_credential=one', 'xplayer_credential=two; player_credential = three'])).toEqual(['one', 'three']);
    expect(presentedCredentials(undefined)).toEqual([]);
  });

  it('holds for the claiming credential within 90 days of the claim, never after, never for another value', () => {
    expect(holdsCredential(item, ['secret-credential'], at(89.9))).toBe(true);
    expect(holdsCredential(item, ['wrong', 'secret-credential'], at(1))).toBe(true);
    expect(holdsCredential(item, ['secret-credential'], at(90))).toBe(false);
    expect(holdsCredential(item, ['other'], at(1))).toBe(false);
    expect(holdsCredential({ ...item, credential_digest: undefined }, ['secret-credential'], at(1))).toBe(false);
  });
});
