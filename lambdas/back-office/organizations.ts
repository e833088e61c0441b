/**
 * Organizations: creation, renaming, archive (the organization's keys answer 409
 * PARTNER_INACTIVE) and restore (the key generation rises: keys from before
 * the archive stay revoked). Renaming, archive and restore are one conditional write to
 * the organization item, with every member's organization entry (the copy of the name,
 * status and key generation web settings reads: organization-entries.ts) and, on archive
 * and restore, an audit entry in each manager's trail (their keys and callbacks are the
 * ones that change) in the same transaction.
 */
import { orgKey, type MembershipItem, type OrgItem } from '../shared/identity/access-items';
import { auditPut, OPERATOR, type AuditAction } from './audit';
import { BackOfficeError } from './errors';
import { firstRunOf, randomId, type IdentityStore } from './identity-store';
import { orgEntryPut, orgWithMembers, type OrgFacts } from './organization-entries';

/** A DynamoDB transaction's items at most. */
const TRANSACTION_ITEMS = 100;
import { repeatableRequest, requestScopedId } from '../shared/storage/repeatable-requests';

export class Organizations {
  constructor(private readonly store: IdentityStore) {}

  /**
   * A new organization. With `requestId` (the admin CLI's `--request-id`) its id is derived from it, so running the
   * same request again (after an error that left its outcome unknown) answers the organization the first run made,
   * `replayed`, instead of making a second one; the same id with another name is REQUEST_ID_REUSED.
   */
  async create(name = 'Organization', requestId?: string): Promise<{ partner_id: string; replayed?: true }> {
    const request = requestId === undefined ? undefined : repeatableRequest('org create', requestId, { name });
    const now = this.store.clock().toISOString();
    const org: OrgItem = {
      partner_id: request ? requestScopedId('org', request) : randomId('org'),
      name,
      status: 'active',
      key_gen: 1,
      managers: {},
      created_at: now,
      updated_at: now,
    };
    const existing = await this.store.putNew(orgKey(org.partner_id), 'org', org);
    if (!existing) return { partner_id: org.partner_id };
    await firstRunOf(request, existing, (first) => first.name === name);
    return { partner_id: org.partner_id, replayed: true };
  }

  get(partnerId: string): Promise<OrgItem | undefined> {
    return this.store.getOrg(partnerId);
  }

  /**
   * A new name (shown in web settings; keys and callbacks do not change, so no audit entry). Setting the name it
   * already has writes nothing, so running it again is safe.
   */
  async rename(partnerId: string, name: string): Promise<{ partner_id: string; name: string }> {
    if (name.trim() === '' || name.length > 200) throw new BackOfficeError('INVALID_ARGUMENT', 'An organization name has 1–200 characters, not only spaces');
    const item = await this.change(partnerId, 'SET #name = :name, updated_at = :now', 'attribute_exists(pk) AND #name <> :name', { ':name': name }, (org) => ({ ...org, name }));
    return { partner_id: item.partner_id, name: item.name };
  }

  /** Archiving suspends the organization's keys (409 PARTNER_INACTIVE) ... */
  async archive(partnerId: string) {
    return this.update(partnerId, 'SET #status = :archived, updated_at = :now', 'attribute_exists(pk)', { ':archived': 'archived' }, 'organization.archived', (org) => ({ ...org, status: 'archived' }));
  }

  /** ... and restoring revokes them for good: the key generation rises. */
  async restore(partnerId: string) {
    return this.update(
      partnerId,
      'SET #status = :active, key_gen = key_gen + :one, updated_at = :now',
      'attribute_exists(pk) AND #status = :archived',
      { ':active': 'active', ':archived': 'archived', ':one': 1 },
      'organization.restored',
      (org) => ({ ...org, status: 'active', key_gen: org.key_gen + 1 }),
    );
  }

  private async update(partnerId: string, expression: string, condition: string, values: Record<string, unknown>, action: AuditAction, after: (org: OrgItem) => OrgFacts) {
    const audits = (org: OrgItem) => Object.keys(org.managers ?? {}).map((accountId) => auditPut(this.store, accountId, action, OPERATOR, { partner_id: partnerId }));
    const item = await this.change(partnerId, expression, condition, values, after, audits);
    return { partner_id: item.partner_id, status: item.status };
  }

  /**
   * The organization item's update, every member's entry written again with `after` (the organization as the update
   * leaves it) and `audits`, in one transaction conditioned on the organization as read (identity-store.ts
   * updateAudited): a membership set or removed meanwhile moves its `updated_at`, so the members read are all of them.
   */
  private async change(
    partnerId: string,
    expression: string,
    condition: string,
    values: Record<string, unknown>,
    after: (org: OrgItem) => OrgFacts,
    audits: (org: OrgItem) => ReturnType<typeof auditPut>[] = () => [],
  ): Promise<OrgItem> {
    return this.store.updateAudited<OrgItem, MembershipItem[]>(
      orgKey(partnerId),
      { expression, condition, values },
      (org, members) => {
        const items = [...members.map((member) => orgEntryPut(this.store.table, after(org), member)), ...audits(org)];
        // Members beyond the bound (added before it existed) would not fit one transaction: nothing is written.
        if (items.length + 1 > TRANSACTION_ITEMS) throw new BackOfficeError('MEMBER_LIMIT', `${partnerId} has ${members.length} members: remove some first`);
        return items;
      },
      () => new BackOfficeError('ORG_NOT_FOUND', `No organization ${partnerId}`),
      async () => {
        const { org, members } = await orgWithMembers(this.store, partnerId);
        return { current: org, related: members };
      },
    );
  }
}
