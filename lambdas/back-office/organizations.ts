/**
 * Organizations: creation, archive (the organization's keys answer 409
 * PARTNER_INACTIVE) and restore (the key generation rises: keys from before
 * the archive stay revoked). Archive and restore are one conditional write to
 * the organization item, with an audit entry in each manager's trail (their
 * keys and callbacks are the ones that change) in the same transaction.
 */
import { orgKey, type OrgItem } from '../shared/identity/access-items';
import { auditPut, OPERATOR, type AuditAction } from './audit';
import { BackOfficeError } from './errors';
import { firstRunOf, randomId, type IdentityStore } from './identity-store';
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

  /** Archiving suspends the organization's keys (409 PARTNER_INACTIVE) ... */
  async archive(partnerId: string) {
    return this.update(partnerId, 'SET #status = :archived, updated_at = :now', 'attribute_exists(pk)', { ':archived': 'archived' }, 'organization.archived');
  }

  /** ... and restoring revokes them for good: the key generation rises. */
  async restore(partnerId: string) {
    return this.update(
      partnerId,
      'SET #status = :active, key_gen = key_gen + :one, updated_at = :now',
      'attribute_exists(pk) AND #status = :archived',
      { ':active': 'active', ':archived': 'archived', ':one': 1 },
      'organization.restored',
    );
  }

  private async update(partnerId: string, expression: string, condition: string, values: Record<string, unknown>, action: AuditAction) {
    const item = await this.store.updateAudited<OrgItem>(
      orgKey(partnerId),
      { expression, condition, values },
      (org) => Object.keys(org.managers ?? {}).map((accountId) => auditPut(this.store, accountId, action, OPERATOR, { partner_id: partnerId })),
      () => new BackOfficeError('ORG_NOT_FOUND', `No organization ${partnerId}`),
    );
    return { partner_id: item.partner_id, status: item.status };
  }
}
