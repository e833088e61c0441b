/**
 * Memberships: an account's role in an organization. The organization
 * item's `managers` map holds, per manager, the grant minted when the
 * account became manager; organization keys remember theirs, so demotion or
 * removal (the grant goes) revokes the keys, and a later promotion (a new
 * grant) restores none (docs/identity.md).
 *
 * Setting a role is a read-modify-write of that grant: the write is
 * conditioned on the grant and membership exactly as read, and a lost race
 * reads again. Without that, a promotion paused between its read and its
 * write would put back a grant that a concurrent demotion had just removed,
 * and the demoted creator's keys would work again: revocation always wins.
 *
 * Each membership has its copy in the account's partition (organization-entries.ts), written in the same
 * transaction: what web settings shows of the account's organizations is one Query.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { membershipKey, orgKey, type MembershipItem, type OrgStatus, type Role } from '../shared/identity/access-items';
import { isConditionFailure, isWriteConflict } from '../shared/storage/conditions';
import { auditPut, OPERATOR } from './audit';
import { BackOfficeError, officeError } from './errors';
import { randomId, type IdentityStore } from './identity-store';
import { queryAllPages } from '../shared/storage/query-pages';
import { MEMBERS_PER_ORGANIZATION, orgEntriesOf, orgEntryDelete, orgEntryPut, orgWithMembers } from './organization-entries';
import { cancelledItem, repeatableRequest, requestRecordPut, RequestIdReused } from '../shared/storage/repeatable-requests';

export class Memberships {
  constructor(private readonly store: IdentityStore) {}

  /**
   * Set an account's role. Becoming manager mints a new grant (an existing
   * manager keeps theirs); demotion removes it, which revokes the keys the
   * account made for this organization.
   */
  async set(partnerId: string, accountId: string, role: Role) {
    return this.store.retryOnConflict(async () => {
      // The organization and its members in one Query, the organization first (orgWithMembers): the member count and
      // the membership are never older than the `updated_at` the transaction is conditioned on.
      const [account, { org, members }] = await Promise.all([this.store.getAccount(accountId), orgWithMembers(this.store, partnerId)]);
      const membership = members.find((member) => member.account_id === accountId);
      if (!account) throw new BackOfficeError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
      if (!org) throw new BackOfficeError('ORG_NOT_FOUND', `No organization ${partnerId}`);
      // A change of the organization rewrites every member's entry in one transaction (organization-entries.ts).
      if (!membership && members.length >= MEMBERS_PER_ORGANIZATION) {
        throw new BackOfficeError('MEMBER_LIMIT', `An organization has at most ${MEMBERS_PER_ORGANIZATION} members`);
      }
      const now = this.store.clock().toISOString();
      const current = org.managers?.[accountId];
      const grant = role === 'manager' ? (current ?? randomId('grant')) : undefined;
      const item: MembershipItem & Record<string, unknown> = {
        ...membershipKey(partnerId, accountId),
        type: 'membership',
        gsi1pk: `ACCOUNT#${accountId}`,
        gsi1sk: `MEMBER#${partnerId}`,
        partner_id: partnerId,
        account_id: accountId,
        role,
        ...(grant ? { grant } : {}),
        updated_at: now,
      };
      await this.store.client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: this.store.table, Item: item, ...unchangedMembership(membership) } },
            {
              Update: {
                TableName: this.store.table,
                Key: orgKey(partnerId),
                UpdateExpression: grant ? 'SET managers.#account = :grant, updated_at = :now' : 'REMOVE managers.#account SET updated_at = :now',
                // The grant exactly as read: a concurrent demotion, removal or promotion makes this attempt read again. The
                // organization as read (`updated_at`: a rename, archive, restore, or another membership added or removed)
                // keeps the entry's copy exact and the member count within the bound.
                ConditionExpression: `${current === undefined ? 'attribute_exists(pk) AND attribute_not_exists(managers.#account)' : 'managers.#account = :current'} AND updated_at = :read`,
                ExpressionAttributeNames: { '#account': accountId },
                ExpressionAttributeValues: {
                  ':now': now,
                  ':read': org.updated_at,
                  ...(grant ? { ':grant': grant } : {}),
                  ...(current !== undefined ? { ':current': current } : {}),
                },
              },
            },
            auditPut(this.store, accountId, 'membership.set', OPERATOR, { partner_id: partnerId, role }),
            orgEntryPut(this.store.table, org, { account_id: accountId, role, grant }),
          ],
        }),
      );
      return { partner_id: partnerId, account_id: accountId, role };
    });
  }

  /**
   * The organizations an account belongs to, with its role and each organization's name and status, by partner id:
   * its organization entries (one consistent Query of its partition) and, beside them, the membership items' account
   * index (`gsi1`) for memberships made before the entries existed; only those read their organization (one batch).
   */
  async ofAccount(accountId: string): Promise<{ partner_id: string; name: string; status: OrgStatus; role: Role }[]> {
    const [entries, memberships] = await Promise.all([orgEntriesOf(this.store, accountId), this.indexedMemberships(accountId)]);
    const entered = new Set(entries.map((entry) => entry.partner_id));
    const older = memberships.filter((m) => !entered.has(m.partner_id));
    const orgs = await this.store.getOrgs(older.map((m) => m.partner_id));
    return [
      ...entries.map((entry) => ({ partner_id: entry.partner_id, name: entry.org_name, status: entry.org_status, role: entry.role })),
      ...older.flatMap(({ partner_id, role }) => {
        const org = orgs.get(partner_id);
        return org ? [{ partner_id, name: org.name, status: org.status, role }] : [];
      }),
    ].sort((a, b) => a.partner_id.localeCompare(b.partner_id));
  }

  /** The account's memberships on `gsi1` (eventually consistent: a membership removed a moment ago may still show). */
  private async indexedMemberships(accountId: string): Promise<{ partner_id: string; role: Role }[]> {
    const items = await queryAllPages(this.store.client, {
      TableName: this.store.table,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':prefix': 'MEMBER#' },
    });
    return items.map((item) => ({ partner_id: String(item.partner_id), role: item.role as Role }));
  }


  /**
   * Removal revokes the keys the account made for this organization; rejoining restores none.
   * It reads nothing it writes back, so it always applies; a transaction conflict with a concurrent
   * change of the same items (DynamoDB cancels one of two overlapping transactions) is retried.
   *
   * With `requestId` (the admin CLI's `--request-id`) the transaction also puts the request's record
   * (repeatable-requests.ts, kept a day): running the same request again (after an error that left its
   * outcome unknown) meets it and answers the removal, `replayed`, instead of MEMBER_NOT_FOUND for its
   * own change, and removes nothing (not even a membership set again since).
   */
  async remove(partnerId: string, accountId: string, requestId?: string): Promise<{ partner_id: string; account_id: string; removed: true; replayed?: true }> {
    const request = requestId === undefined ? undefined : repeatableRequest('member remove', requestId, { org: partnerId, account: accountId });
    const removed = { partner_id: partnerId, account_id: accountId, removed: true as const };
    return this.store.retryOnConflict(async () => {
      const now = this.store.clock();
      try {
        await this.store.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: this.store.table, Key: membershipKey(partnerId, accountId), ConditionExpression: 'attribute_exists(pk)' } },
              {
                Update: {
                  TableName: this.store.table,
                  Key: orgKey(partnerId),
                  UpdateExpression: 'REMOVE managers.#account SET updated_at = :now',
                  ConditionExpression: 'attribute_exists(pk)',
                  ExpressionAttributeNames: { '#account': accountId },
                  ExpressionAttributeValues: { ':now': now.toISOString() },
                },
              },
              auditPut(this.store, accountId, 'membership.removed', OPERATOR, { partner_id: partnerId }),
              ...(request ? [requestRecordPut(this.store.table, request, removed, now)] : []),
              orgEntryDelete(this.store.table, accountId, partnerId),
            ],
          }),
        );
      } catch (error) {
        const record = request ? cancelledItem(error, REQUEST_RECORD_ENTRY) : undefined;
        if (request && record) {
          if (record.request_fp !== request.fingerprint) throw officeError(new RequestIdReused(request));
          return { ...removed, replayed: true as const };
        }
        // A missing membership (or organization) is an answer, not a race: not retried.
        if (isConditionFailure(error) && !isWriteConflict(error)) throw new BackOfficeError('MEMBER_NOT_FOUND', `${accountId} is not a member of ${partnerId}`);
        throw error;
      }
      return removed;
    });
  }
}

/** Where the request record is in removal's transaction (after the membership, the organization and the audit entry). */
const REQUEST_RECORD_ENTRY = 3;

/** The condition that the membership item is still what was read: absent, or the same role, grant and version. */
function unchangedMembership(read: MembershipItem | undefined) {
  if (!read) return { ConditionExpression: 'attribute_not_exists(pk)' };
  return {
    ConditionExpression: `#role = :role AND updated_at = :updated AND ${read.grant === undefined ? 'attribute_not_exists(#grant)' : '#grant = :read_grant'}`,
    ExpressionAttributeNames: { '#role': 'role', '#grant': 'grant' },
    ExpressionAttributeValues: { ':role': read.role, ':updated': read.updated_at, ...(read.grant === undefined ? {} : { ':read_grant': read.grant }) },
  };
}
