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
import { randomId, type IdentityStore } from './identity-store';

export class Organizations {
  constructor(private readonly store: IdentityStore) {}

  async create(name = 'Organization'): Promise<{ partner_id: string }> {
    const now = this.store.clock().toISOString();
    const org: OrgItem = {
      partner_id: randomId('org'),
      name,
      status: 'active',
      key_gen: 1,
      managers: {},
      created_at: now,
      updated_at: now,
    };
    await this.store.putNew(orgKey(org.partner_id), 'org', org);
    return { partner_id: org.partner_id };
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
