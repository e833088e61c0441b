/**
 * What a Lambda container builds once and every request shares: the
 * DynamoDB client, table names, identity reader, the cache of immutable key
 * facts, and the clock. Tests and the local stack pass their own.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { KeyFactsCache } from './identity/authenticate';
import { DynamoIdentityReader, type IdentityReader } from './identity/identity-store';
import { createDocumentClient, tableNamesFromEnv } from './storage/dynamo-client';
import type { TableId } from './storage/table-definitions';

export type Clock = () => Date;

export interface Platform {
  readonly documentClient: DynamoDBDocumentClient;
  readonly tables: Readonly<Record<TableId, string>>;
  readonly identityReader: IdentityReader;
  readonly keyCache: KeyFactsCache;
  readonly clock: Clock;
}

export function createPlatform(overrides: Partial<Platform> = {}): Platform {
  const documentClient = overrides.documentClient ?? createDocumentClient();
  const tables = overrides.tables ?? tableNamesFromEnv();
  return {
    documentClient,
    tables,
    identityReader: overrides.identityReader ?? new DynamoIdentityReader(documentClient, tables.access),
    keyCache: overrides.keyCache ?? new KeyFactsCache(),
    clock: overrides.clock ?? (() => new Date()),
  };
}

let shared: Platform | undefined;

/** The container's platform, created on first use (after the environment is in place). */
export function sharedPlatform(): Platform {
  shared ??= createPlatform();
  return shared;
}
