/** The player's cookie: its attributes, reading it back, and the credential's 90 days counted from the claim. */
import { describe, expect, it } from 'vitest';
import { credentialDigest } from '../../../lambdas/invitations/claim';
import type { InvitationItem } from '../../../lambdas/invitations/invitation-model';
import { holdsCredential, playerCookie, presentedCredential } from '../../../lambdas/player/player-credential';

const claimedAt = new Date('2026-11-01T10:00:00.000Z');
const item = { credential_digest: credentialDigest('secret-credential'), claim_started_at: claimedAt.toISOString() } as InvitationItem;
const at = (days: number) => new Date(claimedAt.getTime() + days * 86_400_000);

describe('the player cookie', () => {
  it('is HttpOnly, Secure, SameSite=Strict, scoped to the invitation path, 90 days at most', () => {
    expect(playerCookie('abc', '/v1/join/x')).toBe('player_credential=abc; Path=/v1/join/x; Max-Age=7776000; HttpOnly; Secure; SameSite=Strict');
  });

  it('reads the credential among other cookies and Cookie headers, and nothing from look-alike names', () => {
    expect(presentedCredential(['a=1', 'xplayer_credential=two; player_credential = three'])).toBe('three');
    expect(presentedCredential(['a=1; player_credentials=x'])).toBeUndefined();
    expect(presentedCredential(undefined)).toBeUndefined();
  });

  it('refuses two values of the name, in one Cookie header or across several, equal or not', () => {
    for (const headers of [['player_credential=one; player_credential=two'], ['player_credential=one', 'b=2; player_credential=one']]) {
      expect(() => presentedCredential(headers)).toThrow(expect.objectContaining({ code: 'DUPLICATE_CREDENTIAL_COOKIE', status: 400 }));
    }
  });

  it('holds for the claiming credential within 90 days of the claim, never after, never for another value', () => {
    expect(holdsCredential(item, 'secret-credential', at(89.9))).toBe(true);
    expect(holdsCredential(item, undefined, at(1))).toBe(false);
    expect(holdsCredential(item, 'secret-credential', at(90))).toBe(false);
    expect(holdsCredential(item, 'other', at(1))).toBe(false);
    expect(holdsCredential({ ...item, credential_digest: undefined }, 'secret-credential', at(1))).toBe(false);
  });
});
