/**
 * The operator's back office for identity: accounts, organizations,
 * memberships and API keys. The admin CLI and the local stack's seed call
 * these; the request path never does.
 *
 * Every lifecycle trigger of the spec's "API key lifecycle" table works by
 * raising a generation or replacing a grant (see access-items.ts), in one
 * conditional write, so a key revoked by it can never come back. Key
 * creation is one transaction conditioned on the account's key-set version,
 * the account's status and generation, and (for organization keys) the
 * organization's status, generation and the creator's manager grant: a
 * concurrent lifecycle change or a concurrent creation makes it retry or fail,
 * never slip through.
 */
import { randomBytes } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import {
  ACCOUNT_KEY_ENTRY_PREFIX,
  accountKey,
  accountKeyEntryKey,
  apiKeyKey,
  membershipKey,
  orgKey,
  type AccountItem,
  type AccountKeyEntry,
  type ApiKeyItem,
  type OrgItem,
  type Role,
} from './access-items';
import { digestApiKey, generateApiKey, keyIdFromDigest } from './api-keys';
import { assessKey } from './key-standing';
import { isScope, scopesAllowedFor, type Scope } from './scopes';

export const KEY_LIMIT_PER_ACCOUNT = 20;
export const KEY_VALIDITY_DAYS = { min: 1, max: 365, default: 90 } as const;
const DAY_MS = 86_400_000;
/** Keys leave the table this long after they expire (TTL): listing keeps showing recently expired ones. */
const EXPIRED_KEY_RETENTION_DAYS = 90;

export type BackOfficeCode =
  | 'INVALID_ARGUMENT'
  | 'ACCOUNT_NOT_FOUND'
  | 'ACCOUNT_INACTIVE'
  | 'ORG_NOT_FOUND'
  | 'PARTNER_INACTIVE'
  | 'PARTNER_MANAGER_REQUIRED'
  | 'MEMBER_NOT_FOUND'
  | 'KEY_NOT_FOUND'
  | 'INVALID_SCOPES'
  | 'INVALID_EXPIRY'
  | 'KEY_LIMIT'
  | 'CONFLICT';

export class BackOfficeError extends Error {
  constructor(
    readonly code: BackOfficeCode,
    message: string,
  ) {
    super(message);
    this.name = 'BackOfficeError';
  }
}

/** Concurrent creations for one account serialize on its key-set version; losers re-read and try again. */
const MAX_CREATE_ATTEMPTS = 40;
const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * 2 ** Math.min(attempt, 5))));

const randomId = (prefix: string) => `${prefix}_${randomBytes(10).toString('hex')}`;

function isConditionFailure(error: unknown): boolean {
  return (
    (error as { name?: string })?.name === 'ConditionalCheckFailedException' ||
    error instanceof TransactionCanceledException
  );
}

export interface CreateKeyInput {
  readonly accountId: string;
  readonly partnerId?: string;
  readonly scopes: readonly string[];
  /** 1–365; default 90. */
  readonly days?: number;
  readonly permanent?: boolean;
}

export interface CreatedKey {
  readonly key_id: string;
  readonly key: string;
  readonly account_id: string;
  readonly partner_id: string | null;
  readonly scopes: string[];
  readonly expires_at: string | null;
}

export interface ListedKey {
  readonly key_id: string;
  readonly partner_id: string | null;
  readonly scopes: string[];
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly status: 'active' | 'expired' | 'revoked';
  readonly reason?: string;
}

export class IdentityBackOffice {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  // ── accounts ──────────────────────────────────────────────────────────

  async createAccount(name = 'Account'): Promise<{ account_id: string }> {
    const now = this.clock().toISOString();
    const account: AccountItem = {
      account_id: randomId('acc'),
      name,
      status: 'active',
      cred_gen: 1,
      key_set_version: 0,
      created_at: now,
      updated_at: now,
    };
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        // `leases`: the concurrency slots admission takes (see limits/admission-store.ts).
        Item: { ...accountKey(account.account_id), type: 'account', ...account, leases: {} },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { account_id: account.account_id };
  }

  /** Deactivation revokes every key of the account (the status check plus, for after re-activation, the generation). */
  async deactivateAccount(accountId: string) {
    return this.updateAccount(accountId, 'SET #status = :deactivated, updated_at = :now', { ':deactivated': 'deactivated' });
  }

  /**
   * Re-enabling an account restores no credential: the generation rises, so old keys stay revoked.
   * Re-enabling an active account changes nothing (and so revokes nothing).
   */
  async reactivateAccount(accountId: string) {
    return this.updateAccount(
      accountId,
      'SET #status = :active, cred_gen = cred_gen + :one, updated_at = :now',
      { ':active': 'active', ':deactivated': 'deactivated', ':one': 1 },
      'attribute_exists(pk) AND #status = :deactivated',
    );
  }

  /** A password change or reset revokes every key (and, once webhooks exist, every webhook) of the account. */
  async resetPassword(accountId: string) {
    return this.updateAccount(accountId, 'SET cred_gen = cred_gen + :one, updated_at = :now', { ':one': 1 });
  }

  /** Apply an update to an existing account; when `condition` fails on an existing account, nothing changes. */
  private async updateAccount(accountId: string, expression: string, values: Record<string, unknown>, condition = 'attribute_exists(pk)') {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: accountKey(accountId),
          UpdateExpression: expression,
          ConditionExpression: condition,
          ExpressionAttributeNames: `${expression} ${condition}`.includes('#status') ? { '#status': 'status' } : undefined,
          ExpressionAttributeValues: { ...values, ':now': this.clock().toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const item = Attributes as AccountItem;
      return { account_id: item.account_id, status: item.status };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const account = await this.getAccount(accountId);
      if (!account) throw new BackOfficeError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
      return { account_id: account.account_id, status: account.status };
    }
  }

  // ── organizations ─────────────────────────────────────────────────────

  async createOrg(name = 'Organization'): Promise<{ partner_id: string }> {
    const now = this.clock().toISOString();
    const org: OrgItem = {
      partner_id: randomId('org'),
      name,
      status: 'active',
      key_gen: 1,
      managers: {},
      created_at: now,
      updated_at: now,
    };
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...orgKey(org.partner_id), type: 'org', ...org, leases: {} },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return { partner_id: org.partner_id };
  }

  /** Archiving suspends the organization's keys (409 PARTNER_INACTIVE) ... */
  async archiveOrg(partnerId: string) {
    return this.updateOrg(partnerId, 'SET #status = :archived, updated_at = :now', 'attribute_exists(pk)', {
      ':archived': 'archived',
    });
  }

  /** ... and restoring revokes them for good: the key generation rises. */
  async restoreOrg(partnerId: string) {
    return this.updateOrg(
      partnerId,
      'SET #status = :active, key_gen = key_gen + :one, updated_at = :now',
      'attribute_exists(pk) AND #status = :archived',
      { ':active': 'active', ':archived': 'archived', ':one': 1 },
      true,
    );
  }

  private async updateOrg(
    partnerId: string,
    expression: string,
    condition: string,
    values: Record<string, unknown>,
    idempotentWhenConditionFails = false,
  ) {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: orgKey(partnerId),
          UpdateExpression: expression,
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ...values, ':now': this.clock().toISOString() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const item = Attributes as OrgItem;
      return { partner_id: item.partner_id, status: item.status };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const org = await this.getOrg(partnerId);
      if (!org) throw new BackOfficeError('ORG_NOT_FOUND', `No organization ${partnerId}`);
      if (idempotentWhenConditionFails) return { partner_id: org.partner_id, status: org.status };
      throw error;
    }
  }

  // ── memberships ───────────────────────────────────────────────────────

  /**
   * Set an account's role. Becoming manager mints a new grant; demotion
   * removes it, which revokes the keys the account made for this organization.
   */
  async setMember(partnerId: string, accountId: string, role: Role) {
    const account = await this.getAccount(accountId);
    if (!account) throw new BackOfficeError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
    const org = await this.getOrg(partnerId);
    if (!org) throw new BackOfficeError('ORG_NOT_FOUND', `No organization ${partnerId}`);
    const now = this.clock().toISOString();
    const current = org.managers?.[accountId];
    const grant = role === 'manager' ? (current ?? randomId('grant')) : undefined;
    await this.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: this.table,
              Item: {
                ...membershipKey(partnerId, accountId),
                type: 'membership',
                gsi1pk: `ACCOUNT#${accountId}`,
                gsi1sk: `MEMBER#${partnerId}`,
                partner_id: partnerId,
                account_id: accountId,
                role,
                ...(grant ? { grant } : {}),
                updated_at: now,
              },
            },
          },
          {
            Update: {
              TableName: this.table,
              Key: orgKey(partnerId),
              UpdateExpression: grant ? 'SET managers.#account = :grant, updated_at = :now' : 'REMOVE managers.#account SET updated_at = :now',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeNames: { '#account': accountId },
              ExpressionAttributeValues: grant ? { ':grant': grant, ':now': now } : { ':now': now },
            },
          },
        ],
      }),
    );
    return { partner_id: partnerId, account_id: accountId, role };
  }

  /** Removal revokes the keys the account made for this organization; rejoining restores none. */
  async removeMember(partnerId: string, accountId: string) {
    const now = this.clock().toISOString();
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.table,
                Key: membershipKey(partnerId, accountId),
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
            {
              Update: {
                TableName: this.table,
                Key: orgKey(partnerId),
                UpdateExpression: 'REMOVE managers.#account SET updated_at = :now',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeNames: { '#account': accountId },
                ExpressionAttributeValues: { ':now': now },
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new BackOfficeError('MEMBER_NOT_FOUND', `${accountId} is not a member of ${partnerId}`);
      throw error;
    }
    return { partner_id: partnerId, account_id: accountId, removed: true };
  }

  // ── API keys ──────────────────────────────────────────────────────────

  async createKey(input: CreateKeyInput): Promise<CreatedKey> {
    const kind = input.partnerId ? 'organization' : 'personal';
    const scopes = validateScopes(input.scopes, kind);
    const now = this.clock();
    const expiresAt = expiryFor(input, now);

    for (let attempt = 0; attempt < MAX_CREATE_ATTEMPTS; attempt += 1) {
      if (attempt > 0) await backoff(attempt);
      const account = await this.getAccount(input.accountId);
      if (!account) throw new BackOfficeError('ACCOUNT_NOT_FOUND', `No account ${input.accountId}`);
      if (account.status !== 'active') throw new BackOfficeError('ACCOUNT_INACTIVE', 'Deactivated accounts cannot create keys');

      let org: OrgItem | undefined;
      if (input.partnerId) {
        org = await this.getOrg(input.partnerId);
        if (!org) throw new BackOfficeError('ORG_NOT_FOUND', `No organization ${input.partnerId}`);
        if (org.status !== 'active') throw new BackOfficeError('PARTNER_INACTIVE', 'The organization is archived');
        if (!org.managers?.[input.accountId]) {
          throw new BackOfficeError('PARTNER_MANAGER_REQUIRED', 'Organization keys require an active manager of the organization');
        }
      }

      // The snapshot just read decides the count; the transaction's version condition guards it.
      const live = (await this.keysOf(input.accountId, account, org)).filter((k) => k.status === 'active');
      if (live.length >= KEY_LIMIT_PER_ACCOUNT) {
        throw new BackOfficeError('KEY_LIMIT', `At most ${KEY_LIMIT_PER_ACCOUNT} unexpired, unrevoked keys per account`);
      }

      const key = generateApiKey();
      const digest = digestApiKey(key);
      const item: ApiKeyItem = {
        key_id: keyIdFromDigest(digest),
        digest,
        account_id: input.accountId,
        partner_id: input.partnerId ?? null,
        scopes,
        created_at: now.toISOString(),
        expires_at: expiresAt,
        account_gen: account.cred_gen,
        org_gen: org ? org.key_gen : null,
        manager_grant: org ? org.managers[input.accountId] : null,
      };
      const ttl = expiresAt ? { ttl: Math.floor(Date.parse(expiresAt) / 1000) + EXPIRED_KEY_RETENTION_DAYS * 86_400 } : {};
      const { digest: _digest, ...entry } = item;

      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: this.table,
                  Item: { ...apiKeyKey(item.key_id), type: 'api_key', ...item, ...ttl, leases: {} },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              { Put: { TableName: this.table, Item: { ...accountKeyEntryKey(input.accountId, item.key_id), type: 'account_key', ...entry, ...ttl } } },
              {
                Update: {
                  TableName: this.table,
                  Key: accountKey(input.accountId),
                  UpdateExpression: 'SET key_set_version = :next',
                  ConditionExpression: '#status = :active AND cred_gen = :gen AND key_set_version = :version',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: {
                    ':active': 'active',
                    ':gen': account.cred_gen,
                    ':version': account.key_set_version,
                    ':next': account.key_set_version + 1,
                  },
                },
              },
              ...(org
                ? [
                    {
                      ConditionCheck: {
                        TableName: this.table,
                        Key: orgKey(org.partner_id),
                        ConditionExpression: '#status = :active AND key_gen = :gen AND managers.#account = :grant',
                        ExpressionAttributeNames: { '#status': 'status', '#account': input.accountId },
                        ExpressionAttributeValues: { ':active': 'active', ':gen': org.key_gen, ':grant': item.manager_grant },
                      },
                    },
                  ]
                : []),
            ],
          }),
        );
      } catch (error) {
        // Another creation or a lifecycle change won the race: re-read and decide again.
        if (isConditionFailure(error)) continue;
        throw error;
      }
      return {
        key_id: item.key_id,
        key,
        account_id: item.account_id,
        partner_id: item.partner_id,
        scopes: item.scopes,
        expires_at: item.expires_at,
      };
    }
    throw new BackOfficeError('CONFLICT', 'Too many concurrent changes to this account; try again');
  }

  async revokeKey(keyId: string) {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: apiKeyKey(keyId), ConsistentRead: true }));
    if (!Item) throw new BackOfficeError('KEY_NOT_FOUND', `No key ${keyId}`);
    const key = Item as ApiKeyItem;
    const revokedAt = key.revoked_at ?? this.clock().toISOString();
    // Never create an item: TTL removes a long-expired key's item and its entry independently.
    const update = (itemKey: Record<string, string>) => ({
      TableName: this.table,
      Key: itemKey,
      UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': revokedAt },
    });
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [{ Update: update(apiKeyKey(keyId)) }, { Update: update(accountKeyEntryKey(key.account_id, keyId)) }],
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The entry is gone (or the key vanished meanwhile): revoke what is left.
      try {
        await this.client.send(new UpdateCommand(update(apiKeyKey(keyId))));
      } catch (inner) {
        if (isConditionFailure(inner)) throw new BackOfficeError('KEY_NOT_FOUND', `No key ${keyId}`);
        throw inner;
      }
    }
    return { key_id: keyId, revoked_at: revokedAt };
  }

  /** An account's keys with their current status, never their values (only digests exist). */
  async listKeys(accountId: string): Promise<{ account_id: string; keys: ListedKey[] }> {
    return { account_id: accountId, keys: await this.keysOf(accountId, await this.getAccount(accountId)) };
  }

  /** The account's keys assessed against an account (and organization) already read. */
  private async keysOf(accountId: string, account: AccountItem | undefined, knownOrg?: OrgItem): Promise<ListedKey[]> {
    const entries: AccountKeyEntry[] = [];
    const isEntry = (item: Record<string, unknown>) => typeof item.key_id === 'string' && typeof item.created_at === 'string';
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': accountKey(accountId).pk, ':prefix': ACCOUNT_KEY_ENTRY_PREFIX },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      entries.push(...((page.Items ?? []).filter(isEntry) as AccountKeyEntry[]));
      startKey = page.LastEvaluatedKey;
    } while (startKey);

    const partnerIds = new Set(entries.flatMap((e) => (e.partner_id ? [e.partner_id] : [])));
    if (knownOrg) partnerIds.delete(knownOrg.partner_id);
    const orgs = await this.getOrgs([...partnerIds]);
    if (knownOrg) orgs.set(knownOrg.partner_id, knownOrg);
    const now = this.clock();
    const keys = entries.map((entry): ListedKey => {
      const standing = assessKey(
        { ...entry, partner_id: entry.partner_id ?? null, digest: '' },
        { key: { revoked_at: entry.revoked_at }, account, org: entry.partner_id ? orgs.get(entry.partner_id) : undefined },
        now,
      );
      return {
        key_id: entry.key_id,
        partner_id: entry.partner_id ?? null,
        scopes: entry.scopes,
        created_at: entry.created_at,
        expires_at: entry.expires_at ?? null,
        ...(standing.usable ? { status: 'active' as const } : { status: standing.status, reason: standing.reason }),
      };
    });
    keys.sort((a, b) => a.created_at.localeCompare(b.created_at));
    return keys;
  }

  // ── reads ─────────────────────────────────────────────────────────────

  async getAccount(accountId: string): Promise<AccountItem | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: accountKey(accountId), ConsistentRead: true }));
    return Item as AccountItem | undefined;
  }

  async getOrg(partnerId: string): Promise<OrgItem | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: orgKey(partnerId), ConsistentRead: true }));
    return Item as OrgItem | undefined;
  }

  private async getOrgs(ids: string[]): Promise<Map<string, OrgItem>> {
    const found = new Map<string, OrgItem>();
    for (let i = 0; i < ids.length; i += 100) {
      let keys: Record<string, unknown>[] | undefined = ids.slice(i, i + 100).map(orgKey);
      while (keys && keys.length > 0) {
        const output: BatchGetCommandOutput = await this.client.send(
          new BatchGetCommand({ RequestItems: { [this.table]: { Keys: keys, ConsistentRead: true } } }),
        );
        for (const item of output.Responses?.[this.table] ?? []) found.set(String(item.partner_id), item as OrgItem);
        keys = output.UnprocessedKeys?.[this.table]?.Keys;
      }
    }
    return found;
  }

}

function expiryFor(input: CreateKeyInput, now: Date): string | null {
  if (input.permanent) {
    if (input.days !== undefined) throw new BackOfficeError('INVALID_EXPIRY', 'Give either a validity in days or permanent, not both');
    return null;
  }
  const days = input.days ?? KEY_VALIDITY_DAYS.default;
  if (!Number.isInteger(days) || days < KEY_VALIDITY_DAYS.min || days > KEY_VALIDITY_DAYS.max) {
    throw new BackOfficeError('INVALID_EXPIRY', `Validity must be a whole number of days from ${KEY_VALIDITY_DAYS.min} to ${KEY_VALIDITY_DAYS.max}`);
  }
  return new Date(now.getTime() + days * DAY_MS).toISOString();
}

function validateScopes(requested: readonly string[], kind: 'personal' | 'organization'): Scope[] {
  const allowed = scopesAllowedFor(kind);
  const unique = [...new Set(requested)];
  if (unique.length === 0 || unique.length !== requested.length) {
    throw new BackOfficeError('INVALID_SCOPES', 'Give one or more distinct scopes');
  }
  for (const scope of unique) {
    if (!isScope(scope) || !allowed.includes(scope)) {
      throw new BackOfficeError('INVALID_SCOPES', `Scope ${scope} is not allowed on a ${kind} key (allowed: ${allowed.join(', ')})`);
    }
  }
  return unique as Scope[];
}
