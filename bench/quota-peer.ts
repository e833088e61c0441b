/**
 * The benchmark's peer for the key quotas: the same six quotas (key, account
 * and organization, per minute and per UTC day, from the limits table) built
 * the way a team would build them with `rate-limiter-flexible`: one
 * `RateLimiterDynamo` per quota on a table of its own, all six in one
 * `RateLimiterUnion`, after a lookup of the presented key.
 *
 * What the library does with a request (lib/RateLimiterDynamo.js,
 * RateLimiterUnion.js, 11.4):
 * - each limiter keeps one item per principal and quota, `{key, points,
 *   expire}`, its window starting at the principal's first request (not
 *   aligned to UTC like the service's);
 * - `consume` is one conditional UpdateItem that restarts the window if it
 *   has expired (`expire <= now OR attribute_not_exists(points)`); when the
 *   window is live that write fails its condition and a second UpdateItem
 *   adds the point (`expire > now`). So a warm request is two sequential
 *   writes per limiter, the first a failed conditional write. Each increment
 *   is atomic, and the request is refused when the value it returns exceeds
 *   the limit: no window admits more than its limit;
 * - the point stays added when the request is refused, and the union runs
 *   all six limiters in parallel and refunds nothing when one of them
 *   refuses: a request refused by its organization's quota still uses up a
 *   point of its key's and its account's, and a key refused by its own quota
 *   keeps spending its organization's.
 *
 * A union gives every limiter the same key, but the six count on three
 * principals: each limiter here is a `RateLimiterDynamo` whose `getKey` picks
 * its principal's id out of the union's key (`peerKey`). That is the only
 * change to the library's behaviour.
 *
 * The table is created beforehand (partition key `key`, TTL on `expire`), and
 * every limiter is built with `tableCreated` and `ttlSet`, so none creates or
 * describes a table on the measured path.
 */
import type { DynamoDB } from '@aws-sdk/client-dynamodb';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { RateLimiterDynamo, RateLimiterRes, RateLimiterUnion } from 'rate-limiter-flexible';
import type { KeyFacts } from '../lambdas/shared/identity/access-items';
import type { KeyItemReader } from '../lambdas/shared/identity/key-authentication';
import { quotaLimits, type KeyHolder, type Limit } from '../lambdas/shared/limits/limits-table';

/** The principals a key's request counts on, in the service's order. */
const HOLDERS: readonly KeyHolder[] = ['key', 'account', 'organization'];

type PrincipalIds = Readonly<Partial<Record<KeyHolder, string>>>;

/** The union's key for a request of this key: the ids of its principals (an organization key's three, a personal key's two). */
export function peerKey(facts: Pick<KeyFacts, 'key_id' | 'account_id' | 'partner_id'>): string {
  const ids: PrincipalIds = { key: facts.key_id, account: facts.account_id, ...(facts.partner_id === null ? {} : { organization: facts.partner_id }) };
  return JSON.stringify(ids);
}

/** A `RateLimiterDynamo` counting on one principal: the library's limiter, its item named by that principal's id. */
export class PrincipalDynamoLimiter extends RateLimiterDynamo {
  constructor(
    options: ConstructorParameters<typeof RateLimiterDynamo>[0],
    readonly holder: KeyHolder,
  ) {
    super(options);
  }

  override getKey(key: string | number): string {
    const id = (JSON.parse(String(key)) as PrincipalIds)[this.holder];
    if (id === undefined) throw new Error(`The union's key names no ${this.holder}: ${key}`);
    return super.getKey(id);
  }
}

export interface PeerLimiter {
  readonly holder: KeyHolder;
  /** The limits table's policy, also the limiter's `keyPrefix` (the union names refusals by it). */
  readonly policy: string;
  readonly limiter: PrincipalDynamoLimiter;
}

export type PeerDecision =
  | { readonly admitted: true }
  /** `policies`: the limiters that refused (their points stay consumed, as do the others'); `errors`: limiters whose store call failed. */
  | { readonly admitted: false; readonly policies: readonly string[]; readonly errors: readonly unknown[] };

export interface QuotaPeerOptions {
  /** A `DynamoDB` (the aggregated client: the limiter calls `updateItem`, `getItem` on it). */
  readonly client: DynamoDB;
  readonly table: string;
  /** The limits table (or the bench's raised or lowered copy): every quota of a key principal that covers every request. */
  readonly limits: readonly Limit[];
}

export class RateLimiterFlexiblePeer {
  /** One limiter per quota, for organization keys (all three principals) and personal keys (no organization). */
  readonly limiters: readonly PeerLimiter[];
  private readonly unions: { readonly organization: RateLimiterUnion; readonly personal: RateLimiterUnion };

  constructor({ client, table, limits }: QuotaPeerOptions) {
    this.limiters = quotaLimits(limits)
      .filter((l): l is typeof l & { holder: KeyHolder } => (HOLDERS as readonly string[]).includes(l.holder) && l.covers === 'all')
      .map((l) => ({
        holder: l.holder,
        policy: l.policy,
        limiter: new PrincipalDynamoLimiter(
          { storeClient: client, tableName: table, tableCreated: true, ttlSet: true, keyPrefix: l.policy, points: l.limit, duration: l.windowSeconds },
          l.holder,
        ),
      }));
    const of = (holders: readonly KeyHolder[]) => new RateLimiterUnion(...this.limiters.filter((l) => holders.includes(l.holder)).map((l) => l.limiter));
    this.unions = { organization: of(HOLDERS), personal: of(['key', 'account']) };
  }

  /** One point of every quota of the key's principals; refused when any limiter is over its limit (or its store failed). */
  async admit(facts: Pick<KeyFacts, 'key_id' | 'account_id' | 'partner_id'>): Promise<PeerDecision> {
    const union = facts.partner_id === null ? this.unions.personal : this.unions.organization;
    try {
      await union.consume(peerKey(facts));
      return { admitted: true };
    } catch (refusal) {
      // The union rejects with an object keyed by keyPrefix: a RateLimiterRes for a limiter over its limit, an error otherwise.
      const entries = Object.entries(refusal as Record<string, unknown>);
      return {
        admitted: false,
        policies: entries.filter(([, outcome]) => outcome instanceof RateLimiterRes).map(([policy]) => policy),
        errors: entries.filter(([, outcome]) => !(outcome instanceof RateLimiterRes)).map(([, outcome]) => outcome),
      };
    }
  }
}

/** The item a peer limiter keeps for a principal: the table's key and the library's `keyPrefix:id`. */
export const peerItemKey = (policy: string, id: string) => ({ key: `${policy}:${id}` });

/**
 * The lookup a team would put before the limiters: a consistent GetItem of the key item, on every
 * request (the service's `authenticateKey` then checks digest, revocation and expiry as it does).
 */
export class KeyItemGet implements KeyItemReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async read(key: { readonly pk: string; readonly sk: string }, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }), { abortSignal: signal });
    return Item;
  }
}
