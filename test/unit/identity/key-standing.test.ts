/**
 * assessKey decides, for the request path and the back office alike, whether
 * a key may be used now and which answer a request with it gets.
 */
import { describe, expect, it } from 'vitest';
import { toKeyFacts, type KeyFacts } from '../../../lambdas/shared/identity/access-items';
import type { ErrorCode } from '../../../lambdas/shared/errors';
import { assessKey, type KeyStanding, type KeyState } from '../../../lambdas/shared/identity/key-standing';
import { ACCOUNT_ID, GRANT, NOW, PARTNER_ID, issueKey } from '../support/identity-fixtures';

const personalFacts: KeyFacts = toKeyFacts(issueKey({ account_gen: 3, expires_at: '2025-03-02T00:00:00.000Z' }).item);
const orgFacts: KeyFacts = toKeyFacts(
  issueKey({ partner_id: PARTNER_ID, account_gen: 3, org_gen: 2, manager_grant: GRANT, expires_at: null }).item,
);

const activeAccount = { status: 'active', cred_gen: 3 } as const;
const activeOrg = { status: 'active', key_gen: 2, managers: { [ACCOUNT_ID]: GRANT } } as const;
const liveKey = {};

interface Case {
  readonly name: string;
  readonly facts: KeyFacts;
  readonly state: KeyState;
  readonly now?: Date;
  readonly expected: KeyStanding;
}

const usable: KeyStanding = { usable: true };
const revoked = (reason: string, denial: ErrorCode = 'INVALID_API_KEY'): KeyStanding => ({ usable: false, status: 'revoked', reason, denial });
const expired: KeyStanding = { usable: false, status: 'expired', reason: 'expired', denial: 'INVALID_API_KEY' };

const cases: Case[] = [
  { name: 'a live personal key is usable', facts: personalFacts, state: { key: liveKey, account: activeAccount }, expected: usable },
  {
    name: 'a live organization key of an active manager is usable',
    facts: orgFacts,
    state: { key: liveKey, account: activeAccount, org: activeOrg },
    expected: usable,
  },
  {
    name: 'a permanent key never expires',
    facts: orgFacts,
    state: { key: liveKey, account: activeAccount, org: activeOrg },
    now: new Date('2099-01-01T00:00:00.000Z'),
    expected: usable,
  },
  {
    name: 'a key one millisecond before its expiry is usable',
    facts: personalFacts,
    state: { key: liveKey, account: activeAccount },
    now: new Date(Date.parse('2025-03-02T00:00:00.000Z') - 1),
    expected: usable,
  },
  {
    name: 'a key at its expiry instant is expired',
    facts: personalFacts,
    state: { key: liveKey, account: activeAccount },
    now: new Date('2025-03-02T00:00:00.000Z'),
    expected: expired,
  },
  {
    name: 'a key revoked by its creator is revoked',
    facts: personalFacts,
    state: { key: { revoked_at: '2025-02-15T00:00:00.000Z' }, account: activeAccount },
    expected: revoked('revoked_by_creator'),
  },
  {
    name: 'a key whose item is gone is revoked',
    facts: personalFacts,
    state: { key: undefined, account: activeAccount },
    expected: revoked('revoked_by_creator'),
  },
  {
    name: 'revocation is reported before expiry',
    facts: personalFacts,
    state: { key: { revoked_at: '2025-02-15T00:00:00.000Z' }, account: activeAccount },
    now: new Date('2025-06-01T00:00:00.000Z'),
    expected: revoked('revoked_by_creator'),
  },
  {
    name: 'a key of a deactivated account is revoked',
    facts: personalFacts,
    state: { key: liveKey, account: { status: 'deactivated', cred_gen: 3 } },
    expected: revoked('account_deactivated'),
  },
  {
    name: 'a key of a missing account is revoked',
    facts: personalFacts,
    state: { key: liveKey, account: undefined },
    expected: revoked('account_deactivated'),
  },
  {
    name: 'a key created before a password reset (or re-activation) is revoked',
    facts: personalFacts,
    state: { key: liveKey, account: { status: 'active', cred_gen: 4 } },
    expected: revoked('account_credentials_reset'),
  },
  {
    name: 'an organization key of a deactivated account answers 401, not an organization error',
    facts: orgFacts,
    state: { key: liveKey, account: { status: 'deactivated', cred_gen: 3 }, org: { ...activeOrg, status: 'archived' } },
    expected: revoked('account_deactivated'),
  },
  {
    name: 'an organization key whose organization is missing is revoked',
    facts: orgFacts,
    state: { key: liveKey, account: activeAccount, org: undefined },
    expected: revoked('organization_missing'),
  },
  {
    name: 'an organization key of an archived organization answers PARTNER_INACTIVE',
    facts: orgFacts,
    state: { key: liveKey, account: activeAccount, org: { ...activeOrg, status: 'archived' } },
    expected: revoked('organization_archived', 'PARTNER_INACTIVE'),
  },
  {
    name: 'an organization key from before a restore stays revoked',
    facts: orgFacts,
    state: { key: liveKey, account: activeAccount, org: { ...activeOrg, key_gen: 3 } },
    expected: revoked('organization_archived'),
  },
  {
    name: 'an organization key from before a restore stays revoked when the organization is archived again',
    facts: orgFacts,
    state: { key: liveKey, account: activeAccount, org: { ...activeOrg, status: 'archived', key_gen: 3 } },
    expected: revoked('organization_archived'),
  },
  {
    name: 'an organization key whose creator is no longer manager answers PARTNER_MANAGER_REQUIRED',
    facts: orgFacts,
    state: { key: liveKey, account: activeAccount, org: { ...activeOrg, managers: {} } },
    expected: revoked('creator_not_manager', 'PARTNER_MANAGER_REQUIRED'),
  },
  {
    name: 'an organization key from before a demotion and re-promotion stays revoked',
    facts: orgFacts,
    state: { key: liveKey, account: activeAccount, org: { ...activeOrg, managers: { [ACCOUNT_ID]: 'grant_new' } } },
    expected: revoked('creator_not_manager'),
  },
  {
    name: "another manager's grant does not keep the key alive",
    facts: orgFacts,
    state: { key: liveKey, account: activeAccount, org: { ...activeOrg, managers: { acc_other: GRANT } } },
    expected: revoked('creator_not_manager', 'PARTNER_MANAGER_REQUIRED'),
  },
];

describe('assessKey', () => {
  it.each(cases)('$name', ({ facts, state, now, expected }) => {
    // Act
    const standing = assessKey(facts, state, now ?? NOW);

    // Assess
    expect(standing).toEqual(expected);
  });
});
