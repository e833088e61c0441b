/**
 * Webhook callbacks: creation under the 10-per-account and 10-per-organization
 * limits, the creator's listing, ownership, verification's activation and
 * deactivation. Items: webhook-items.ts.
 *
 * A callback's standing is decided as a key's is (key-standing.ts `assessKey`)
 * from the facts it was created under and the account and organization items
 * as they are now: the lifecycle events that revoke keys (password change or
 * reset, removal or demotion, archive, deactivation) leave the callback
 * unable to deliver, for good, from that instant. The listing shows such a
 * callback as deactivated, and the delivery worker, before the next attempt,
 * writes the deactivation and cancels what was pending (ACCESS_REVOKED).
 *
 * Creation is one transaction conditioned on the account's and the
 * organization's callback-set versions (and on everything the standing
 * needs): two concurrent creations cannot both take the tenth place.
 *
 * A creation with an idempotency key (web settings' Idempotency-Key) records
 * it, with the request's fingerprint, on the callback's account entry, in
 * that transaction: the entries the creation reads to count the account's
 * callbacks are where it finds an earlier attempt of the same request (no
 * item, read or write of its own), and the account's version condition makes
 * it exact. A replay answers the callback without its secret
 * (docs/webhooks.md, "Retrying a creation").
 */
import { createHash } from 'node:crypto';
import type * as z from 'zod/mini';
import { BatchGetCommand, type BatchGetCommandOutput, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { auditPut, type AuditSource } from '../back-office/audit';
import { IdentityStore } from '../back-office/identity-store';
import { ApiError } from '../shared/errors';
import { accountKey, orgKey, type AccountItem, type OrgItem } from '../shared/identity/access-items';
import { assessKey, type KeyStanding } from '../shared/identity/key-standing';
import { isConditionFailure, isWriteConflict, retryOnConflict } from '../shared/storage/conditions';
import {
  accountWebhookKey,
  DAY_MS,
  DELIVERY_RETENTION_DAYS,
  ttlAfter,
  WEBHOOK_LIMIT,
  WEBHOOK_PREFIX,
  webhookKey,
  webhookLookup,
  type AccountWebhookEntry,
  type DeactivationReason,
  type StandingFacts,
  type WebhookItem,
} from './webhook-items';
import type { WebhookSchema } from './webhook-contracts';

export type Clock = () => Date;

/** A callback as the settings API shows it (never its secret), as its contract's schema declares it. */
export type WebhookView = z.input<typeof WebhookSchema>;

/** A callback with its current standing (its creator's account and its organization as they are now). */
export interface StandingCallback {
  readonly item: WebhookItem;
  readonly standing: KeyStanding;
}

/** What a creation answers. */
export type CallbackCreation =
  | { readonly outcome: 'created'; readonly webhook: WebhookView }
  /** An earlier attempt of the same request (same account and idempotency key) created it: its secret is not shown again. */
  | { readonly outcome: 'replayed'; readonly webhook: WebhookView }
  /** An earlier attempt with this idempotency key asked for another callback. */
  | { readonly outcome: 'conflict' };

export interface CreateCallbackInput {
  readonly webhookId: string;
  readonly accountId: string;
  readonly partnerId: string;
  /** The address as url-rules.ts normalized it. */
  readonly url: string;
  readonly host: string;
  readonly sealedSecret: string;
  readonly source: AuditSource;
  /** Web settings' Idempotency-Key: at most one callback per account and key. */
  readonly idempotencyKey?: string;
}

/** The account's entry of the callback created with an idempotency key, if any (`earlierCreation`: read beside the admission). */
export interface EarlierCallbackCreation {
  readonly kind: 'earlier-callback-creation';
  readonly accountId: string;
  readonly idempotencyKey: string;
  readonly entry: AccountWebhookEntry | undefined;
}

export const isEarlierCallbackCreation = (value: unknown): value is EarlierCallbackCreation =>
  (value as EarlierCallbackCreation | undefined)?.kind === 'earlier-callback-creation';

/** What an account entry of a callback created with an idempotency key also holds. */
interface CreationRecord {
  readonly idempotency_key?: string;
  /** callbackRequestFingerprint of the creating request. */
  readonly request_fp?: string;
}

/** The irreversible fingerprint of a creation request: the organization and the normalized address. */
export const callbackRequestFingerprint = (partnerId: string, url: string) =>
  createHash('sha256').update(`callback-request/v1\n${partnerId}\n${url}`).digest('base64url');

/**
 * The entry of the callback created with `idempotencyKey`, among an account's entries: the latest, should an entry
 * outlive its callback (TTL removes the two independently) and the key have created anew (see `replay`).
 */
const createdWith = (entries: readonly AccountWebhookEntry[], idempotencyKey: string) =>
  entries
    .filter((entry) => (entry as CreationRecord).idempotency_key === idempotencyKey)
    .reduce<AccountWebhookEntry | undefined>((latest, entry) => (latest && latest.created_at >= entry.created_at ? latest : entry), undefined);

/** First activations that lose a race on the callback (to a concurrent verification's write) before it is decided on as it is then. */
const ACTIVATION_ATTEMPTS = 5;

/** Lost races before a creation gives up (409 SETTINGS_CONFLICT): as many as the back office's identity changes allow. */
const CREATE_ATTEMPTS = 40;

/** The standing of a callback, by the rules of keys: a callback is an organization credential that never expires. */
export function callbackStanding(facts: StandingFacts, account: AccountItem | undefined, org: OrgItem | undefined, now: Date): KeyStanding {
  return assessKey(
    {
      key_id: '',
      digest: '',
      account_id: facts.account_id,
      partner_id: facts.partner_id,
      scopes: [],
      created_at: '',
      expires_at: null,
      account_gen: facts.account_gen,
      org_gen: facts.org_gen,
      manager_grant: facts.manager_grant,
    },
    { key: {}, account, org },
    now,
  );
}

/** The callback as it is once deactivated at `at` for `reason` (what the deactivation wrote). */
export const deactivatedAs = (item: WebhookItem, at: string, reason: DeactivationReason): WebhookItem => ({
  ...item,
  status: 'deactivated',
  deactivated_at: at,
  deactivation_reason: reason,
});

export function viewOf(item: WebhookItem, standing: KeyStanding): WebhookView {
  const lost = item.status !== 'deactivated' && !standing.usable;
  return {
    webhook_id: item.webhook_id,
    partner_id: item.partner_id,
    url: item.url,
    status: lost ? 'deactivated' : item.status,
    created_at: item.created_at,
    activated_at: item.activated_at ?? null,
    deactivated_at: item.deactivated_at ?? null,
    deactivation_reason: !standing.usable && item.status !== 'deactivated' ? standing.reason : (item.deactivation_reason ?? null),
    last_verification: item.last_verification ?? null,
  };
}

export class Callbacks {
  private readonly identity: IdentityStore;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: Clock = () => new Date(),
  ) {
    this.identity = new IdentityStore(client, table, clock);
  }

  /**
   * Create a callback for `partnerId` by `accountId`, `sealedSecret` already sealed for `webhookId`; with an
   * idempotency key, at most once per account and key (an earlier attempt of the same request answers `replayed`,
   * of another request `conflict`).
   * Throws ApiError: ACCOUNT_INACTIVE, PARTNER_MANAGER_REQUIRED, PARTNER_INACTIVE, WEBHOOK_LIMIT_OR_ACCESS_CHANGED.
   */
  async create(input: CreateCallbackInput): Promise<CallbackCreation> {
    // Another creation, a lifecycle change or an admission write got there first: read again and decide again.
    return retryOnConflict(() => this.createOnce(input), CREATE_ATTEMPTS, () => new ApiError('SETTINGS_CONFLICT'));
  }

  /** The account's callback created with `idempotencyKey`, if any: one consistent Query of its entries. */
  async earlierCreation(accountId: string, idempotencyKey: string): Promise<EarlierCallbackCreation> {
    return { kind: 'earlier-callback-creation', accountId, idempotencyKey, entry: createdWith(await this.entriesOf(accountId), idempotencyKey) };
  }

  /**
   * What an earlier creation answers to a request for `partnerId` and `url`: the callback as it is now (one
   * BatchGetItem) when it asked for the same, else a conflict; undefined when the callback itself is gone (TTL removes
   * a long-deactivated callback and its entry independently): nothing left to answer, the request creates anew.
   */
  async replay(entry: AccountWebhookEntry, partnerId: string, url: string): Promise<CallbackCreation | undefined> {
    if ((entry as CreationRecord).request_fp !== callbackRequestFingerprint(partnerId, url)) return { outcome: 'conflict' };
    const { found } = await this.withStanding(entry.partner_id, entry.webhook_id, entry.account_id);
    return found ? { outcome: 'replayed', webhook: viewOf(found.item, found.standing) } : undefined;
  }

  private async createOnce(input: CreateCallbackInput): Promise<CallbackCreation> {
    const [account, org] = await Promise.all([this.identity.getAccount(input.accountId), this.identity.getOrg(input.partnerId)]);
    if (!account) throw new ApiError('SESSION_REQUIRED');
    if (account.status !== 'active') throw new ApiError('ACCOUNT_INACTIVE');
    const grant = org?.managers?.[input.accountId];
    if (!org || grant === undefined) throw new ApiError('PARTNER_MANAGER_REQUIRED', 'Webhook callbacks need an active manager of the organization.');
    if (org.status !== 'active') throw new ApiError('PARTNER_INACTIVE');

    // The account's entries, read after the account: its version condition below guards what they say (its count, an
    // earlier attempt of this request), beside the organization's count.
    const ofAccount = async (): Promise<{ replayed: CallbackCreation } | { count: number }> => {
      const entries = await this.entriesOf(input.accountId);
      const earlier = input.idempotencyKey === undefined ? undefined : createdWith(entries, input.idempotencyKey);
      const replayed = earlier && (await this.replay(earlier, input.partnerId, input.url));
      return replayed ? { replayed } : { count: await this.liveOfAccount(account, entries) };
    };
    const [accountSide, orgCount] = await Promise.all([ofAccount(), this.liveOfOrganization(org)]);
    if ('replayed' in accountSide) return accountSide.replayed;
    if (accountSide.count >= WEBHOOK_LIMIT || orgCount >= WEBHOOK_LIMIT) throw new ApiError('WEBHOOK_LIMIT_OR_ACCESS_CHANGED');

    const now = this.clock().toISOString();
    const facts: StandingFacts = {
      account_id: input.accountId,
      partner_id: input.partnerId,
      account_gen: account.cred_gen,
      org_gen: org.key_gen,
      manager_grant: grant,
    };
    const item: WebhookItem = {
      ...facts,
      webhook_id: input.webhookId,
      url: input.url,
      host: input.host,
      status: 'unverified',
      sealed_secret: input.sealedSecret,
      created_at: now,
    };
    const record: CreationRecord =
      input.idempotencyKey === undefined ? {} : { idempotency_key: input.idempotencyKey, request_fp: callbackRequestFingerprint(input.partnerId, input.url) };
    const entry: AccountWebhookEntry & CreationRecord = { ...facts, webhook_id: input.webhookId, created_at: now, ...record };
    const accountVersion = (account as { webhook_set_version?: number }).webhook_set_version;
    const orgVersion = (org as { webhook_set_version?: number }).webhook_set_version;
    await this.client.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: this.table,
              Key: accountKey(input.accountId),
              UpdateExpression: 'SET webhook_set_version = :next',
              ConditionExpression: `#status = :active AND cred_gen = :gen AND ${versionCondition(accountVersion)}`,
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':next': (accountVersion ?? 0) + 1, ':active': 'active', ':gen': account.cred_gen, ...versionValue(accountVersion) },
            },
          },
          {
            Update: {
              TableName: this.table,
              Key: orgKey(input.partnerId),
              UpdateExpression: 'SET webhook_set_version = :next',
              ConditionExpression: `#status = :active AND key_gen = :gen AND managers.#account = :grant AND ${versionCondition(orgVersion)}`,
              ExpressionAttributeNames: { '#status': 'status', '#account': input.accountId },
              ExpressionAttributeValues: { ':next': (orgVersion ?? 0) + 1, ':active': 'active', ':gen': org.key_gen, ':grant': grant, ...versionValue(orgVersion) },
            },
          },
          {
            Put: {
              TableName: this.table,
              Item: { ...webhookKey(input.partnerId, input.webhookId), type: 'webhook', ...item },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          // The entry carries the index key, not the callback: the callback's slot writes stay off the index.
          { Put: { TableName: this.table, Item: { ...accountWebhookKey(input.accountId, input.webhookId), ...webhookLookup(input.webhookId), type: 'webhook-entry', ...entry } } },
          auditPut(this.identity, input.accountId, 'webhook.created', input.source, { webhook_id: input.webhookId }),
        ],
      }),
    );
    return { outcome: 'created', webhook: viewOf(item, { usable: true }) };
  }

  /** The account's callbacks (deactivated ones for 30 days), newest first, with their current standing. */
  async listOfAccount(accountId: string): Promise<WebhookView[]> {
    const now = this.clock();
    const [account, entries] = await Promise.all([this.identity.getAccount(accountId), this.entriesOf(accountId)]);
    const items = await this.batchGet(entries.map((entry) => webhookKey(entry.partner_id, entry.webhook_id)));
    const orgs = await this.identity.getOrgs([...new Set(entries.map((entry) => entry.partner_id))]);
    const keep = (item: WebhookItem) => !item.deactivated_at || Date.parse(item.deactivated_at) > now.getTime() - DELIVERY_RETENTION_DAYS * DAY_MS;
    return items
      .map((raw) => raw as unknown as WebhookItem)
      .filter(keep)
      .map((item) => viewOf(item, callbackStanding(item, account, orgs.get(item.partner_id), now)))
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.webhook_id.localeCompare(a.webhook_id));
  }

  /** The partner of one of the account's callbacks, from its entry (one read), or undefined. */
  async partnerOfOwned(accountId: string, webhookId: string): Promise<string | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: accountWebhookKey(accountId, webhookId), ConsistentRead: true }));
    return Item ? String(Item.partner_id) : undefined;
  }

  /** One of the account's callbacks with its standing, or 404 WEBHOOK_NOT_FOUND. */
  async owned(accountId: string, webhookId: string): Promise<StandingCallback> {
    const partnerId = await this.partnerOfOwned(accountId, webhookId);
    const found = partnerId ? (await this.withStanding(partnerId, webhookId, accountId)).found : undefined;
    if (!found || found.item.account_id !== accountId) throw new ApiError('WEBHOOK_NOT_FOUND');
    return found;
  }

  /**
   * A callback, its creator's account and its organization, read together: one BatchGetItem
   * (consistent) when the creator is known (the delivery messages carry it), else two reads.
   * `also`: more keys fetched in the same request (the worker's delivery record).
   */
  async withStanding(
    partnerId: string,
    webhookId: string,
    accountId?: string,
    also: readonly { pk: string; sk: string }[] = [],
  ): Promise<{ found: StandingCallback | undefined; also: (Record<string, unknown> | undefined)[] }> {
    const callbackKey = webhookKey(partnerId, webhookId);
    const keys = [callbackKey, orgKey(partnerId), ...(accountId ? [accountKey(accountId)] : []), ...also];
    const items = await this.batchGet(keys);
    const find = (key: { pk: string; sk: string }) => items.find((i) => i.pk === key.pk && i.sk === key.sk);
    const extra = also.map(find);
    const item = find(callbackKey) as unknown as WebhookItem | undefined;
    if (!item) return { found: undefined, also: extra };
    const org = find(orgKey(partnerId)) as unknown as OrgItem | undefined;
    const account =
      accountId === item.account_id ? (find(accountKey(accountId)) as unknown as AccountItem | undefined) : await this.identity.getAccount(item.account_id);
    return { found: { item, standing: callbackStanding(item, account, org, this.clock()) }, also: extra };
  }

  /**
   * Verification passed: the callback becomes active (or stays so); from now on new business events reach it. The first
   * activation writes its `webhook.verified` audit entry in the same transaction, conditioned on the callback being
   * unverified: a retry after a lost answer finds it active (its entry written with it), and of concurrent
   * verifications one writes the entry. An active callback is checked again, with no entry.
   */
  async activate(item: WebhookItem, verification: NonNullable<WebhookItem['last_verification']>, source: AuditSource): Promise<WebhookItem> {
    const key = webhookKey(item.partner_id, item.webhook_id);
    let current: WebhookItem | undefined = item;
    for (let attempt = 1; current?.status === 'unverified' && attempt <= ACTIVATION_ATTEMPTS; attempt += 1) {
      const at = this.clock().toISOString();
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: this.table,
                  Key: key,
                  UpdateExpression: 'SET #status = :active, activated_at = if_not_exists(activated_at, :at), last_verification = :verification',
                  ConditionExpression: '#status = :unverified',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: { ':active': 'active', ':unverified': 'unverified', ':at': at, ':verification': verification },
                },
              },
              auditPut(this.identity, current.account_id, 'webhook.verified', source, { webhook_id: current.webhook_id }),
            ],
          }),
        );
        return { ...current, status: 'active', activated_at: current.activated_at ?? at, last_verification: verification };
      } catch (error) {
        if (!isConditionFailure(error) && !isWriteConflict(error)) throw error;
        // Another verification, a failed one's record or a deactivation came first: decide on the callback as it is now.
        const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
        current = Item as WebhookItem | undefined;
      }
    }
    if (current?.status !== 'active') throw new ApiError('WEBHOOK_INACTIVE');
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          UpdateExpression: 'SET last_verification = :verification',
          ConditionExpression: '#status = :active',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':active': 'active', ':verification': verification },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes as unknown as WebhookItem;
    } catch (error) {
      if (isConditionFailure(error)) throw new ApiError('WEBHOOK_INACTIVE');
      throw error;
    }
  }

  /** A failed verification is recorded on the callback (its status does not change). */
  async recordVerification(item: WebhookItem, verification: NonNullable<WebhookItem['last_verification']>): Promise<WebhookItem> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.table,
        Key: webhookKey(item.partner_id, item.webhook_id),
        UpdateExpression: 'SET last_verification = :verification',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':verification': verification },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes as unknown as WebhookItem;
  }

  /**
   * Deactivate a callback for good (its account entry stops counting toward the 10), once: returns
   * when it was deactivated, or undefined when it already was. The caller cancels its pending deliveries.
   */
  async deactivate(item: Pick<WebhookItem, 'partner_id' | 'webhook_id' | 'account_id'>, reason: DeactivationReason, source?: AuditSource): Promise<string | undefined> {
    const now = this.clock();
    const at = now.toISOString();
    const ttl = ttlAfter(now.getTime() + DELIVERY_RETENTION_DAYS * DAY_MS);
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.table,
                Key: webhookKey(item.partner_id, item.webhook_id),
                UpdateExpression: 'SET #status = :deactivated, deactivated_at = :at, deactivation_reason = :reason, #ttl = :ttl',
                ConditionExpression: 'attribute_exists(pk) AND #status <> :deactivated',
                ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl' },
                ExpressionAttributeValues: { ':deactivated': 'deactivated', ':at': at, ':reason': reason, ':ttl': ttl },
              },
            },
            {
              Update: {
                TableName: this.table,
                Key: accountWebhookKey(item.account_id, item.webhook_id),
                UpdateExpression: 'SET closed_at = :at, #ttl = :ttl',
                ExpressionAttributeNames: { '#ttl': 'ttl' },
                ExpressionAttributeValues: { ':at': at, ':ttl': ttl },
              },
            },
            ...(source ? [auditPut(this.identity, item.account_id, 'webhook.deactivated', source, { webhook_id: item.webhook_id })] : []),
          ],
        }),
      );
      return at;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      if (isWriteConflict(error)) return this.deactivate(item, reason, source);
      throw error;
    }
  }

  /** An organization's callbacks (every status), for the operator's CLI and the fan-out. */
  async ofOrganization(partnerId: string, onlyActive = false): Promise<WebhookItem[]> {
    return (await this.callbackItemsOf(orgKey(partnerId).pk, onlyActive)) as unknown as WebhookItem[];
  }

  /** Non-deactivated callbacks the account created whose standing holds, among its entries (`entries`: already read). */
  private async liveOfAccount(account: AccountItem, entries: readonly AccountWebhookEntry[]): Promise<number> {
    const open = entries.filter((entry) => !entry.closed_at);
    if (open.length === 0) return 0;
    const orgs = await this.identity.getOrgs([...new Set(open.map((entry) => entry.partner_id))]);
    const now = this.clock();
    return open.filter((entry) => callbackStanding(entry, account, orgs.get(entry.partner_id), now).usable).length;
  }

  /** Non-deactivated callbacks of the organization whose standing holds. */
  private async liveOfOrganization(org: OrgItem): Promise<number> {
    const open = (await this.ofOrganization(org.partner_id)).filter((item) => item.status !== 'deactivated');
    if (open.length === 0) return 0;
    const accounts = await this.batchGet([...new Set(open.map((item) => item.account_id))].map(accountKey));
    const byId = new Map(accounts.map((a) => [String(a.account_id), a as unknown as AccountItem]));
    const now = this.clock();
    return open.filter((item) => callbackStanding(item, byId.get(item.account_id), org, now).usable).length;
  }

  private async entriesOf(accountId: string): Promise<AccountWebhookEntry[]> {
    return (await this.callbackItemsOf(accountKey(accountId).pk)) as unknown as AccountWebhookEntry[];
  }

  /** Every `WEBHOOK#` item of a partition (an organization's callbacks, an account's entries), read consistently. */
  private async callbackItemsOf(pk: string, onlyActive = false): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ...(onlyActive ? { FilterExpression: '#status = :active', ExpressionAttributeNames: { '#status': 'status' } } : {}),
          ExpressionAttributeValues: { ':pk': pk, ':prefix': WEBHOOK_PREFIX, ...(onlyActive ? { ':active': 'active' } : {}) },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  private async batchGet(keys: readonly { pk: string; sk: string }[]): Promise<Record<string, unknown>[]> {
    const found: Record<string, unknown>[] = [];
    for (let i = 0; i < keys.length; i += 100) {
      let pending: Record<string, unknown>[] | undefined = keys.slice(i, i + 100).map((key) => ({ ...key }));
      while (pending && pending.length > 0) {
        const output: BatchGetCommandOutput = await this.client.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: pending, ConsistentRead: true } } }));
        found.push(...(output.Responses?.[this.table] ?? []));
        pending = output.UnprocessedKeys?.[this.table]?.Keys;
      }
    }
    return found;
  }
}

const versionCondition = (version: number | undefined) =>
  version === undefined ? 'attribute_not_exists(webhook_set_version)' : 'webhook_set_version = :version';
const versionValue = (version: number | undefined) => (version === undefined ? {} : { ':version': version });
