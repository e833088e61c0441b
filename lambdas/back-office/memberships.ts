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
 */
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { membershipKey, orgKey, type MembershipItem, type Role } from '../shared/identity/access-items';
import { isConditionFailure, isWriteConflict } from '../shared/storage/conditions';
import { auditPut, OPERATOR } from './audit';
import { BackOfficeError, officeError } from './errors';
import { randomId, type IdentityStore } from './identity-store';
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
      const [account, org, membership] = await Promise.all([
        this.store.getAccount(accountId),
        this.store.getOrg(partnerId),
        this.store.getMembership(partnerId, accountId),
      ]);
      if (!account) throw new BackOfficeError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
      if (!org) throw new BackOfficeError('ORG_NOT_FOUND', `No organization ${partnerId}`);
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
                // The grant exactly as read: a concurrent demotion, removal or promotion makes this attempt read again.
                ConditionExpression: current === undefined ? 'attribute_exists(pk) AND attribute_not_exists(managers.#account)' : 'managers.#account = :current',
                ExpressionAttributeNames: { '#account': accountId },
                ExpressionAttributeValues: {
                  ':now': now,
                  ...(grant ? { ':grant': grant } : {}),
                  ...(current !== undefined ? { ':current': current } : {}),
                },
              },
            },
            auditPut(this.store, accountId, 'membership.set', OPERATOR, { partner_id: partnerId, role }),
          ],
        }),
      );
      return { partner_id: partnerId, account_id: accountId, role };
    });
  }

  /**
   * The organizations an account belongs to, with its role and each organization's name and status:
   * one Query of the membership items' account index (`gsi1`, eventually consistent: for display,
   * never for a decision) and one batch read of the organizations.
   */
  async ofAccount(accountId: string): Promise<{ partner_id: string; name: string; status: string; role: Role }[]> {
    const memberships: { partner_id: string; role: Role }[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.store.client.send(
        new QueryCommand({
          TableName: this.store.table,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :prefix)',
          ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':prefix': 'MEMBER#' },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) memberships.push({ partner_id: String(item.partner_id), role: item.role as Role });
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    const orgs = await this.store.getOrgs(memberships.map((m) => m.partner_id));
    return memberships.flatMap(({ partner_id, role }) => {
      const org = orgs.get(partner_id);
      return org ? [{ partner_id, name: org.name, status: org.status, role }] : [];
    });
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
