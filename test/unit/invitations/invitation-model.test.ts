/**
 * The invitation model: the state at an instant (expiry by time, never by a
 * write), the scope-derived id, the request fingerprint, and the join token.
 */
import { describe, expect, it } from 'vitest';
import {
  INVITATION_ID_PATTERN,
  invitationIdFor,
  isActiveAt,
  requestFingerprint,
  stateAt,
  toInvitation,
  type InvitationItem,
} from '../../../lambdas/invitations/invitation-model';
import { isJoinToken, joinLink, joinToken, playerSiteBase } from '../../../lambdas/invitations/join-link';
import { InvitationSchema } from '../../../lambdas/invitations/invitation-contracts';

/** The Invitation object's fields, as its contract declares them (the response schema is strict: nothing else is answered). */
const INVITATION_FIELDS = Object.keys(InvitationSchema.def.shape).sort();
/** What must never appear in an Invitation, whatever its contract says: the leak guard, kept explicit. */
const NEVER_IN_INVITATION = ['notes', 'request_fp', 'key_id', 'player', 'credential_digest', 'submission_digest', 'link', 'token'];

const item: InvitationItem = {
  id: invitationIdFor('key_1', 'org_1', 'idem-key-0123456789'),
  partner_id: 'org_1',
  key_id: 'key_1',
  game: 'fps',
  notes: 'secret notes',
  request_fp: requestFingerprint('fps', 'secret notes'),
  state: 'pending',
  created_at: '2026-11-01T00:00:00.000Z',
  expires_at: '2026-11-08T00:00:00.000Z',
  archived_at: null,
  ticket_id: null,
  seq: 1,
  player: { in_game_name: 'Steve', game_account_id: 'x' },
  credential_digest: 'digest',
};

describe('state at an instant', () => {
  it('is expired from the expiry instant on, for a pending invitation only', () => {
    expect(stateAt(item, new Date('2026-11-07T23:59:59.999Z'))).toBe('pending');
    expect(stateAt(item, new Date('2026-11-08T00:00:00.000Z'))).toBe('expired');
    expect(stateAt({ ...item, state: 'claiming' }, new Date('2026-12-01T00:00:00Z'))).toBe('claiming');
    expect(stateAt({ ...item, state: 'revoked' }, new Date('2026-12-01T00:00:00Z'))).toBe('revoked');
  });

  it('counts pending (unexpired) and claiming invitations as active', () => {
    const later = new Date('2026-12-01T00:00:00Z');
    expect(isActiveAt(item, new Date('2026-11-02T00:00:00Z'))).toBe(true);
    expect(isActiveAt(item, later)).toBe(false);
    expect(isActiveAt({ ...item, state: 'claiming' }, later)).toBe(true);
    expect(isActiveAt({ ...item, state: 'joined' }, later)).toBe(false);
  });

  it('shows state metadata only: no notes, fingerprint, key, player or credential', () => {
    const shown = Object.keys(toInvitation(item, new Date('2026-11-02T00:00:00Z'))).sort();
    expect(shown).toEqual(INVITATION_FIELDS);
    for (const field of NEVER_IN_INVITATION) expect(shown).not.toContain(field);
  });
});

describe('idempotency scope and fingerprint', () => {
  it('derives one UUID per scope, different for another key, organization or Idempotency-Key', () => {
    expect(item.id).toMatch(INVITATION_ID_PATTERN);
    expect(item.id[14]).toBe('8');
    expect(invitationIdFor('key_1', 'org_1', 'idem-key-0123456789')).toBe(item.id);
    expect(new Set([invitationIdFor('key_2', 'org_1', 'idem-key-0123456789'), invitationIdFor('key_1', 'org_2', 'idem-key-0123456789'), invitationIdFor('key_1', 'org_1', 'idem-key-0123456780')]).size).toBe(3);
  });

  it('fingerprints the game and the notes as compared (NFC, trimmed; absent = empty)', () => {
    expect(requestFingerprint('fps', '  Ärger ')).toBe(requestFingerprint('fps', 'A\u0308rger'));
    expect(requestFingerprint('fps', undefined)).toBe(requestFingerprint('fps', '   '));
    expect(requestFingerprint('fps', 'a')).not.toBe(requestFingerprint('minecraft', 'a'));
    expect(requestFingerprint('fps', 'SECRET-NOTE')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('join link', () => {
  const key = Buffer.alloc(32, 3);
  it('puts the token only in the fragment and verifies it under the current, previous or staged next secret', () => {
    const token = joinToken(key, item.id);
    const link = new URL(joinLink(playerSiteBase({}, 'api.example.com'), item.id, token));
    expect(link.origin + link.pathname).toBe(`https://api.example.com/v1/join/${item.id}`);
    expect(link.hash).toBe(`#token=${token}`);
    expect(isJoinToken(token, item.id, { current: key })).toBe(true);
    expect(isJoinToken(token, item.id, { current: Buffer.alloc(32, 4), previous: key })).toBe(true);
    // Made by a container that already signs with the staged next secret (a rotation in progress).
    expect(isJoinToken(token, item.id, { current: Buffer.alloc(32, 4), pending: key })).toBe(true);
    expect(isJoinToken(token, invitationIdFor('k', 'o', 'another-key-01234'), { current: key })).toBe(false);
    expect(isJoinToken(`${token}x`, item.id, { current: key })).toBe(false);
  });

  it('uses the stage\u2019s player site address when it is set', () => {
    expect(playerSiteBase({ PLAYER_SITE_URL: 'https://play.example.com/join/' }, 'api.example.com')).toBe('https://play.example.com/join');
  });
});
