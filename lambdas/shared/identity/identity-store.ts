/**
 * DynamoDB adapter for what the request path reads about identity: a key's
 * item, and in one BatchGetItem round trip the items that can revoke it.
 */
import { BatchGetCommand, GetCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  accountKey,
  apiKeyKey,
  orgKey,
  toKeyFacts,
  type AccountItem,
  type ApiKeyItem,
  type KeyFacts,
  type OrgItem,
} from './access-items';
import type { KeyState } from './key-standing';

export interface IdentityReader {
  /** The key's item, read consistently; undefined when no such key exists. */
  readKey(keyId: string): Promise<{ facts: KeyFacts; revokedAt?: string } | undefined>;
  /** The current state of everything that can revoke the key, in one round trip. */
  readKeyState(facts: KeyFacts, options: { includeKey: boolean }): Promise<KeyState>;
}

const STATE_PROJECTION = 'pk, revoked_at, #status, cred_gen, key_gen, managers';

export class DynamoIdentityReader implements IdentityReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async readKey(keyId: string) {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: apiKeyKey(keyId), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const item = Item as ApiKeyItem;
    return { facts: toKeyFacts(item), revokedAt: item.revoked_at };
  }

  async readKeyState(facts: KeyFacts, { includeKey }: { includeKey: boolean }): Promise<KeyState> {
    const keys = [accountKey(facts.account_id)];
    if (includeKey) keys.push(apiKeyKey(facts.key_id));
    if (facts.partner_id !== null) keys.push(orgKey(facts.partner_id));

    const found = new Map<string, Record<string, unknown>>();
    let request: Record<string, { Keys: Record<string, unknown>[] }> | undefined = {
      [this.tableName]: { Keys: keys },
    };
    // BatchGetItem may return unprocessed keys under throttling; finish them (rare, bounded by the key count).
    for (let attempt = 0; request && attempt < 5; attempt += 1) {
      const output: BatchGetCommandOutput = await this.client.send(
        new BatchGetCommand({
          RequestItems: Object.fromEntries(
            Object.entries(request).map(([table, { Keys }]) => [
              table,
              {
                Keys,
                ConsistentRead: true,
                ProjectionExpression: STATE_PROJECTION,
                ExpressionAttributeNames: { '#status': 'status' },
              },
            ]),
          ),
        }),
      );
      for (const item of output.Responses?.[this.tableName] ?? []) found.set(String(item.pk), item);
      const unprocessed: Record<string, unknown>[] | undefined = output.UnprocessedKeys?.[this.tableName]?.Keys;
      request = unprocessed && unprocessed.length > 0 ? { [this.tableName]: { Keys: unprocessed } } : undefined;
    }
    if (request) throw new Error('DynamoDB left identity keys unprocessed');

    const key = includeKey ? found.get(apiKeyKey(facts.key_id).pk) : {};
    return {
      key: key as KeyState['key'],
      account: found.get(accountKey(facts.account_id).pk) as AccountItem | undefined,
      org: facts.partner_id === null ? undefined : (found.get(orgKey(facts.partner_id).pk) as OrgItem | undefined),
    };
  }
}
