/**
 * API keys: creation (the admin CLI today, the web settings later: both call
 * this), revocation by the creator, and the listing of an account's keys
 * with their standing. Only the digest of a key is stored; the value is
 * returned once, at creation.
 *
 * Creation is one transaction conditioned on the account's key-set version,
 * its status and generation and, for organization keys, the organization's
 * status, generation and the creator's manager grant: a concurrent creation
 * or lifecycle change makes it read again and decide again (the 20-key limit
 * holds under any concurrency), never slip through.
 *
 * A creation with an idempotency key (web settings' Idempotency-Key) records
 * it, with the request's fingerprint, on the key's account entry, written in
 * that transaction: the entries the creation reads to count the account's
 * keys are also where it finds an earlier attempt of the same request, so
 * the record costs no item, read or write of its own, and the key-set version
 * condition makes it exact (two attempts at once: one creates, the other
 * reads again and finds it). The value is not in the record: a replay
 * answers the key without it (docs/web-settings.md, "Retrying a creation").
 */
import { createHash } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  ACCOUNT_KEY_ENTRY_PREFIX,
  accountKey,
  accountKeyEntryKey,
  apiKeyKey,
  orgKey,
  type AccountItem,
  type AccountKeyEntry,
  type ApiKeyItem,
  type OrgItem,
} from '../shared/identity/access-items';
import { digestApiKey, generateApiKey, keyIdFromDigest } from '../shared/identity/api-keys';
import { assessKey } from '../shared/identity/key-standing';
import { isScope, scopesAllowedFor, type Scope } from '../shared/identity/scopes';
import { isConditionFailure, isWriteConflict } from '../shared/storage/conditions';
import { queryAllPages } from '../shared/storage/query-pages';
import { auditPut, OPERATOR, type AuditSource } from './audit';
import { BackOfficeError } from './errors';
import type { IdentityStore } from './identity-store';
import { ORG_ENTRY_PREFIX, orgStandingOf, type OrgEntry } from './organization-entries';

export const KEY_LIMIT_PER_ACCOUNT = 20;
export const KEY_VALIDITY_DAYS = { min: 1, max: 365, default: 90 } as const;
const DAY_MS = 86_400_000;
/** Keys leave the table this long after they expire (TTL): listing keeps showing recently expired ones. */
const EXPIRED_KEY_RETENTION_DAYS = 90;

/** A key's name: what its creator calls it (0–64 characters, no control characters). */
export const KEY_NAME_MAX_CHARACTERS = 64;
export const KEY_NAME_PATTERN = /^[^\p{Cc}]{0,64}$/u;

export interface CreateKeyInput {
  readonly accountId: string;
  /** Shown in the key list; default empty. */
  readonly name?: string;
  readonly partnerId?: string;
  readonly scopes: readonly string[];
  /** 1–365; default 90. */
  readonly days?: number;
  readonly permanent?: boolean;
  /** Who creates it (audit trail); default: the operator. */
  readonly source?: AuditSource;
}

/** The key as an earlier attempt of the same request created it: everything but its value, which was shown once and is stored nowhere. */
export type ReplayedKey = Omit<CreatedKey, 'key'>;

/** What a creation with an idempotency key answers. */
export type KeyCreation =
  | { readonly outcome: 'created'; readonly key: CreatedKey }
  /** An earlier attempt of the same request created it. */
  | { readonly outcome: 'replayed'; readonly key: ReplayedKey }
  /** An earlier attempt with this idempotency key asked for another key. */
  | { readonly outcome: 'conflict' };

/** The account's entry of the key created with an idempotency key, if any (`earlierCreation`: what the settings API reads beside its admission). */
export interface EarlierKeyCreation {
  readonly kind: 'earlier-key-creation';
  readonly accountId: string;
  readonly idempotencyKey: string;
  readonly entry: AccountKeyEntry | undefined;
}

export const isEarlierKeyCreation = (value: unknown): value is EarlierKeyCreation => (value as EarlierKeyCreation | undefined)?.kind === 'earlier-key-creation';

/**
 * What a creation decides from, read together in one round trip (the settings API starts it beside its admission):
 * the account, the organization of an organization key, the account's key entries (the count, an earlier attempt)
 * and its organization entries (the standing of its other organization keys: organization-entries.ts).
 */
export interface KeyCreationReads {
  readonly kind: 'key-creation-reads';
  readonly accountId: string;
  readonly partnerId: string | undefined;
  readonly account: AccountItem | undefined;
  readonly org: OrgItem | undefined;
  readonly entries: readonly AccountKeyEntry[];
  readonly orgEntries: readonly OrgEntry[];
}

export const isKeyCreationReads = (value: unknown): value is KeyCreationReads => (value as KeyCreationReads | undefined)?.kind === 'key-creation-reads';

/** What an account entry of a key created with an idempotency key also holds. */
interface CreationRecord {
  readonly idempotency_key?: string;
  /** keyRequestFingerprint of the creating request. */
  readonly request_fp?: string;
}

/**
 * The irreversible fingerprint of a creation request, as the creator asked for it (the name trimmed, the scopes in any
 * order, the validity as given or its default): the same request, retried, has the same fingerprint.
 */
export function keyRequestFingerprint(input: Omit<CreateKeyInput, 'accountId' | 'source'>): string {
  const validity = input.permanent ? `permanent ${input.days ?? ''}` : `days ${input.days ?? KEY_VALIDITY_DAYS.default}`;
  const scopes = [...input.scopes].sort().join(' ');
  return createHash('sha256')
    .update(`key-request/v1\n${(input.name ?? '').normalize('NFC').trim()}\n${input.partnerId ?? ''}\n${scopes}\n${validity}`)
    .digest('base64url');
}

export interface CreatedKey {
  readonly key_id: string;
  readonly key: string;
  readonly name: string;
  readonly created_at: string;
  readonly account_id: string;
  readonly partner_id: string | null;
  readonly scopes: string[];
  readonly expires_at: string | null;
}

export interface ListedKey {
  readonly key_id: string;
  readonly name: string;
  readonly partner_id: string | null;
  readonly scopes: string[];
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly status: 'active' | 'expired' | 'revoked';
  readonly reason?: string;
}

export class ApiKeys {
  constructor(private readonly store: IdentityStore) {}

  /** Create a key (the admin CLI, the local seed, web settings without an idempotency key). */
  async create(input: CreateKeyInput, reads?: KeyCreationReads): Promise<CreatedKey> {
    const creation = await this.mint(input, undefined, reads);
    // Without an idempotency key there is no earlier attempt to find: a creation or an error.
    if (creation.outcome !== 'created') throw new Error(`Key creation without an idempotency key answered ${creation.outcome}`);
    return creation.key;
  }

  /**
   * Create a key at most once per account and `idempotencyKey`: an earlier attempt of the same request (its answer
   * lost, or concurrent) answers that key (`replayed`, without its value), one of another request `conflict`.
   */
  async createIdempotent(input: CreateKeyInput, idempotencyKey: string, reads?: KeyCreationReads): Promise<KeyCreation> {
    return this.mint(input, idempotencyKey, reads);
  }

  /**
   * What a creation for `accountId` (and `partnerId`) decides from (KeyCreationReads): one round trip. The account item,
   * its key entries and its organization entries come from one consistent Query of the account's partition, in key
   * order: the account item (`ACCOUNT`) is read before the entries (`KEY#…`, `ORG#…`), so the entries are never older
   * than the key-set version the transaction is conditioned on. Read apart and in parallel, an entries read from before
   * a concurrent creation with a version read from after it would let the same Idempotency-Key create a second key
   * (test/races/key-creation.test.ts found that interleaving).
   */
  async creationReads(accountId: string, partnerId: string | undefined): Promise<KeyCreationReads> {
    const [partition, org] = await Promise.all([this.accountPartition(accountId), partnerId === undefined ? undefined : this.store.getOrg(partnerId)]);
    return { kind: 'key-creation-reads', accountId, partnerId, org, ...partition };
  }

  /** The account item, then its key entries and organization entries: one consistent Query (every page), in key order. */
  private async accountPartition(accountId: string): Promise<{ account: AccountItem | undefined; entries: AccountKeyEntry[]; orgEntries: OrgEntry[] }> {
    const { pk, sk } = accountKey(accountId);
    const items = await queryAllPages(this.store.client, {
      TableName: this.store.table,
      // 'ACCOUNT' < 'KEY#…' < 'ORG#…' < 'ORG$': the account item first, then both kinds of entries.
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': pk, ':from': sk, ':to': `${ORG_ENTRY_PREFIX.slice(0, -1)}$` },
      ConsistentRead: true,
    });
    const account = items.find((item) => item.sk === sk) as AccountItem | undefined;
    const entries = items.filter((item) => String(item.sk).startsWith(ACCOUNT_KEY_ENTRY_PREFIX) && isAccountKeyEntry(item)) as AccountKeyEntry[];
    const orgEntries = items.filter((item) => String(item.sk).startsWith(ORG_ENTRY_PREFIX) && item.type === 'org_entry') as unknown as OrgEntry[];
    return { account, entries, orgEntries };
  }

  /** The account's key created with `idempotencyKey`, among what a creation read. */
  earlierIn(reads: KeyCreationReads, idempotencyKey: string): EarlierKeyCreation {
    return { kind: 'earlier-key-creation', accountId: reads.accountId, idempotencyKey, entry: createdWith(reads.entries, idempotencyKey) };
  }

  /** The account's key created with `idempotencyKey`, if any: one consistent Query of its entries. */
  async earlierCreation(accountId: string, idempotencyKey: string): Promise<EarlierKeyCreation> {
    const entries = await this.entriesOf(accountId);
    return { kind: 'earlier-key-creation', accountId, idempotencyKey, entry: createdWith(entries, idempotencyKey) };
  }

  /** What an earlier creation answers to `input`: the key it created when it asked for the same, else a conflict. */
  replay(entry: AccountKeyEntry, input: CreateKeyInput): KeyCreation {
    if ((entry as CreationRecord).request_fp !== keyRequestFingerprint(input)) return { outcome: 'conflict' };
    return {
      outcome: 'replayed',
      key: {
        key_id: entry.key_id,
        name: entry.name ?? '',
        created_at: entry.created_at,
        account_id: entry.account_id,
        partner_id: entry.partner_id ?? null,
        scopes: entry.scopes,
        expires_at: entry.expires_at ?? null,
      },
    };
  }

  /**
   * `reads`: what the first attempt decides from, when read for this account and organization already (beside the
   * settings API's admission); an attempt after a lost race reads again.
   */
  private async mint(input: CreateKeyInput, idempotencyKey: string | undefined, reads?: KeyCreationReads): Promise<KeyCreation> {
    const kind = input.partnerId ? 'organization' : 'personal';
    const scopes = validateScopes(input.scopes, kind);
    const name = (input.name ?? '').trim();
    if (!KEY_NAME_PATTERN.test(name)) throw new BackOfficeError('INVALID_ARGUMENT', `A key name has at most ${KEY_NAME_MAX_CHARACTERS} characters, no control characters`);
    const now = this.store.clock();
    const expiresAt = expiryFor(input, now);

    let given = reads !== undefined && reads.accountId === input.accountId && reads.partnerId === input.partnerId ? reads : undefined;
    return this.store.retryOnConflict(async () => {
      // Everything in one round trip; the transaction's conditions guard what it decides from.
      const read = given ?? (await this.creationReads(input.accountId, input.partnerId));
      given = undefined;
      const { account, entries } = read;
      if (!account) throw new BackOfficeError('ACCOUNT_NOT_FOUND', `No account ${input.accountId}`);
      if (account.status !== 'active') throw new BackOfficeError('ACCOUNT_INACTIVE', 'Deactivated accounts cannot create keys');

      let org: OrgItem | undefined;
      if (input.partnerId) {
        org = read.org;
        if (!org) throw new BackOfficeError('ORG_NOT_FOUND', `No organization ${input.partnerId}`);
        // The grant first: an account that does not manage the organization learns nothing of its standing.
        if (!org.managers?.[input.accountId]) {
          throw new BackOfficeError('PARTNER_MANAGER_REQUIRED', 'Organization keys require an active manager of the organization');
        }
        if (org.status !== 'active') throw new BackOfficeError('PARTNER_INACTIVE', 'The organization is archived');
      }

      // The snapshot read decides the count, and finds an earlier attempt; the transaction's version condition guards both.
      // (Another organization's state read earlier can only show its keys more alive than they are now: revocation is
      // for good, so the count errs toward refusing, never toward a 21st key.)
      const earlier = idempotencyKey === undefined ? undefined : createdWith(entries, idempotencyKey);
      if (earlier) return this.replay(earlier, input);
      const live = (await this.assessed(entries, account, read.orgEntries, org)).filter((k) => k.status === 'active');
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
      const record: CreationRecord = idempotencyKey === undefined ? {} : { idempotency_key: idempotencyKey, request_fp: keyRequestFingerprint(input) };
      const table = this.store.table;

      await this.store.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: table,
                Item: { ...apiKeyKey(item.key_id), type: 'api_key', ...item, ...ttl, leases: {} },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            { Put: { TableName: table, Item: { ...accountKeyEntryKey(input.accountId, item.key_id), type: 'account_key', ...entry, name, ...record, ...ttl } } },
            {
              Update: {
                TableName: table,
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
                      TableName: table,
                      Key: orgKey(org.partner_id),
                      ConditionExpression: '#status = :active AND key_gen = :gen AND managers.#account = :grant',
                      ExpressionAttributeNames: { '#status': 'status', '#account': input.accountId },
                      ExpressionAttributeValues: { ':active': 'active', ':gen': org.key_gen, ':grant': item.manager_grant },
                    },
                  },
                ]
              : []),
            auditPut(this.store, input.accountId, 'key.created', input.source ?? OPERATOR, { key_id: item.key_id }),
          ],
        }),
      );
      return {
        outcome: 'created',
        key: {
          key_id: item.key_id,
          key,
          name,
          created_at: item.created_at,
          account_id: item.account_id,
          partner_id: item.partner_id,
          scopes: item.scopes,
          expires_at: item.expires_at,
        },
      };
    });
  }

  /**
   * Revocation reads the key only to find its entry and writes `revoked_at` only where none is set:
   * it writes back nothing it read. A transaction conflict with a concurrent change is retried.
   * With `by`, only that account's keys (credentials are managed by their creator): another's key
   * is KEY_NOT_FOUND, as a missing one. The first revocation is recorded in the audit trail.
   */
  async revoke(keyId: string, options: { by?: string; source?: AuditSource } = {}) {
    const { client, table } = this.store;
    return this.store.retryOnConflict(async () => {
      const { Item } = await client.send(new GetCommand({ TableName: table, Key: apiKeyKey(keyId), ConsistentRead: true }));
      if (!Item || (options.by !== undefined && Item.account_id !== options.by)) throw new BackOfficeError('KEY_NOT_FOUND', `No key ${keyId}`);
      const key = Item as ApiKeyItem;
      if (key.revoked_at) return { key_id: keyId, revoked_at: key.revoked_at };
      const revokedAt = this.store.clock().toISOString();
      // Never create an item: TTL removes a long-expired key's item and its entry independently.
      // `if_not_exists`: a concurrent revocation's time is kept, never overwritten.
      const update = (itemKey: Record<string, string>) => ({
        TableName: table,
        Key: itemKey,
        UpdateExpression: 'SET revoked_at = if_not_exists(revoked_at, :now)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': revokedAt },
      });
      try {
        await client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Update: { ...update(apiKeyKey(keyId)), ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revoked_at)' } },
              { Update: update(accountKeyEntryKey(key.account_id, keyId)) },
              auditPut(this.store, key.account_id, 'key.revoked', options.source ?? OPERATOR, { key_id: keyId }),
            ],
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error) || isWriteConflict(error)) throw error;
        // A concurrent revocation came first: its time stands (and its audit entry is the one).
        const { Item: now } = await client.send(new GetCommand({ TableName: table, Key: apiKeyKey(keyId), ConsistentRead: true }));
        if (typeof now?.revoked_at === 'string') return { key_id: keyId, revoked_at: now.revoked_at };
        // The entry is gone (or the key vanished meanwhile): revoke what is left.
        try {
          await client.send(new UpdateCommand(update(apiKeyKey(keyId))));
        } catch (inner) {
          if (isConditionFailure(inner)) throw new BackOfficeError('KEY_NOT_FOUND', `No key ${keyId}`);
          throw inner;
        }
      }
      return { key_id: keyId, revoked_at: revokedAt };
    });
  }

  /** An account's keys with their current status, never their values (only digests exist). */
  async list(accountId: string): Promise<{ account_id: string; keys: ListedKey[] }> {
    // The account, its key entries and its organization entries (its organization keys' standing) in one Query: one round
    // trip, and a second only for keys of an organization without the account's entry (organization-entries.ts).
    const { account, entries, orgEntries } = await this.accountPartition(accountId);
    return { account_id: accountId, keys: await this.assessed(entries, account, orgEntries) };
  }

  /** The account's key entries (consistent reads, every page). */
  private async entriesOf(accountId: string): Promise<AccountKeyEntry[]> {
    const items = await queryAllPages(this.store.client, {
      TableName: this.store.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': accountKey(accountId).pk, ':prefix': ACCOUNT_KEY_ENTRY_PREFIX },
      ConsistentRead: true,
    });
    return items.filter(isAccountKeyEntry) as AccountKeyEntry[];
  }


  /**
   * Entries assessed against an account (and organization) already read and the account's organization entries; only
   * organizations without an entry of the account (it left them, or joined before the entries existed) in one batch.
   */
  private async assessed(entries: readonly AccountKeyEntry[], account: AccountItem | undefined, orgEntries: readonly OrgEntry[], knownOrg?: OrgItem): Promise<ListedKey[]> {
    const orgs = new Map<string, Pick<OrgItem, 'status' | 'key_gen' | 'managers'>>(orgEntries.map((entry) => [entry.partner_id, orgStandingOf(entry)]));
    if (knownOrg) orgs.set(knownOrg.partner_id, knownOrg);
    const unknown = [...new Set(entries.flatMap((e) => (e.partner_id && !orgs.has(e.partner_id) ? [e.partner_id] : [])))];
    if (unknown.length > 0) for (const [partnerId, org] of await this.store.getOrgs(unknown)) orgs.set(partnerId, org);
    const now = this.store.clock();
    const keys = entries.map((entry): ListedKey => {
      const standing = assessKey(
        { ...entry, partner_id: entry.partner_id ?? null, digest: '' },
        { key: { revoked_at: entry.revoked_at }, account, org: entry.partner_id ? orgs.get(entry.partner_id) : undefined },
        now,
      );
      return {
        key_id: entry.key_id,
        name: entry.name ?? '',
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
}

/** The entry of the key created with `idempotencyKey`, among an account's entries. */
const createdWith = (entries: readonly AccountKeyEntry[], idempotencyKey: string) =>
  entries.find((entry) => (entry as CreationRecord).idempotency_key === idempotencyKey);

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

/** A key entry of an account's partition (`KEY#<key id>`). */
const isAccountKeyEntry = (item: Record<string, unknown>) => typeof item.key_id === 'string' && typeof item.created_at === 'string';
