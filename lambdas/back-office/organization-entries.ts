/**
 * An account's organization entries: per membership, one item in the account's own partition
 * (`ACCOUNT#<account_id>` / `ORG#<partner_id>`, beside its key entries) holding the member's role and grant and the
 * organization's name, status and key generation. So what web settings shows of an account's organizations, and the
 * standing of its organization keys (key-standing.ts needs the status, the key generation and the creator's grant),
 * is one consistent Query of the account's partition, never a read of each organization.
 *
 * The entry is a copy, kept exact by writing it in the same transaction as every change of what it copies: a
 * membership set (memberships.ts: its Put, conditioned on the organization as read) or removed (its Delete), and an
 * organization renamed, archived or restored (organizations.ts: every member's entry Put again, conditioned on the
 * organization's `updated_at` as read, which every membership change moves too, so the members read are all of them).
 * One transaction holds at most 100 items: the organization, a Put per member and, on archive and restore, an audit
 * entry per manager. Hence at most MEMBERS_PER_ORGANIZATION members (`member set` refuses one more).
 *
 * A membership made before the entries existed has none until its organization next changes (that change's Put
 * writes it): the readers fall back to the organization item for those only (memberships.ts `ofAccount`,
 * api-keys.ts), and for keys of an organization the account no longer belongs to.
 */
import { queryAllPages } from '../shared/storage/query-pages';
import { accountKey, orgKey, type MembershipItem, type OrgItem, type OrgStatus, type Role } from '../shared/identity/access-items';
import type { IdentityStore } from './identity-store';

export const ORG_ENTRY_PREFIX = 'ORG#';
const MEMBER_PREFIX = 'MEMBER#';

/** 1 + 49 entries + 49 audit entries (every member a manager) = 99 items: within a transaction's 100. */
export const MEMBERS_PER_ORGANIZATION = 49;

export const orgEntryKey = (accountId: string, partnerId: string) => ({ pk: accountKey(accountId).pk, sk: `${ORG_ENTRY_PREFIX}${partnerId}` });

export interface OrgEntry {
  readonly partner_id: string;
  readonly account_id: string;
  readonly role: Role;
  /** The member's manager grant (managers only): the organization item's `managers[account_id]`. */
  readonly grant?: string;
  readonly org_name: string;
  readonly org_status: OrgStatus;
  readonly org_key_gen: number;
}

/** What of the organization an entry copies. */
export type OrgFacts = Pick<OrgItem, 'partner_id' | 'name' | 'status' | 'key_gen'>;

/** The Put of a member's entry, for the transaction that sets the membership or changes the organization. */
export function orgEntryPut(table: string, org: OrgFacts, member: Pick<MembershipItem, 'account_id' | 'role' | 'grant'>) {
  const entry: OrgEntry = {
    partner_id: org.partner_id,
    account_id: member.account_id,
    role: member.role,
    ...(member.grant ? { grant: member.grant } : {}),
    org_name: org.name,
    org_status: org.status,
    org_key_gen: org.key_gen,
  };
  return { Put: { TableName: table, Item: { ...orgEntryKey(member.account_id, org.partner_id), type: 'org_entry', ...entry } } };
}

export const orgEntryDelete = (table: string, accountId: string, partnerId: string) => ({ Delete: { TableName: table, Key: orgEntryKey(accountId, partnerId) } });

/** The organization as an entry shows it, for key-standing.ts: its status, key generation and this member's grant. */
export const orgStandingOf = (entry: OrgEntry): Pick<OrgItem, 'status' | 'key_gen' | 'managers'> => ({
  status: entry.org_status,
  key_gen: entry.org_key_gen,
  managers: entry.grant ? { [entry.account_id]: entry.grant } : {},
});

/** The account's organization entries (consistent, every page). */
export async function orgEntriesOf(store: IdentityStore, accountId: string): Promise<OrgEntry[]> {
  return (await queryAll(store, accountKey(accountId).pk, ORG_ENTRY_PREFIX)).filter((item) => item.type === 'org_entry') as unknown as OrgEntry[];
}

/**
 * The organization item and its membership items, in one consistent Query of its partition read backwards: 'ORG' sorts
 * after 'MEMBER#…', so the organization item is read first and the members after it, never older than the `updated_at`
 * it shows (every membership change moves it). Read apart and in parallel, a members read from before a membership
 * change beside an organization read from after it would pass the change's `updated_at` condition with a member
 * missing (a rename leaving that member's entry with the old name; a 50th member).
 */
export async function orgWithMembers(store: IdentityStore, partnerId: string): Promise<{ org: OrgItem | undefined; members: MembershipItem[] }> {
  const { pk, sk } = orgKey(partnerId);
  const items = await queryAllPages(store.client, {
    TableName: store.table,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :members AND :org',
    ExpressionAttributeValues: { ':pk': pk, ':members': MEMBER_PREFIX, ':org': sk },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
  const org = items.find((item) => item.sk === sk) as OrgItem | undefined;
  // In key order, as a forward read lists them.
  const members = items.filter((item) => String(item.sk).startsWith(MEMBER_PREFIX)).reverse() as unknown as MembershipItem[];
  return { org, members };
}

async function queryAll(store: IdentityStore, pk: string, prefix: string): Promise<Record<string, unknown>[]> {
  return queryAllPages(store.client, {
    TableName: store.table,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
    ConsistentRead: true,
  });
}
