/**
 * The back office the admin CLI works on: a deployed stage's tables (`--stage`, with the caller's AWS credentials), or
 * the local stack's that `npm start` recorded in its state file. Imported on first use by scripts/admin.ts, so that
 * `--help` and usage errors load none of it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createBackOffice, type BackOffice } from '../lambdas/back-office/back-office';
import { createDocumentClient } from '../lambdas/shared/storage/dynamo-client';
import { physicalTableName } from '../lambdas/shared/storage/table-definitions';
import { localDynamoClient } from '../local/dynamo-local';
import { LOCAL_STATE_FILE } from '../local/state-file';
import { LocalStackNotRunning } from './admin-cli';

export function backOfficeFor(stage: string | undefined): BackOffice {
  if (stage) {
    return createBackOffice(createDocumentClient(new DynamoDBClient({})), physicalTableName(stage, 'access'), undefined, physicalTableName(stage, 'domain'));
  }
  if (!existsSync(LOCAL_STATE_FILE)) throw new LocalStackNotRunning();
  const state = JSON.parse(readFileSync(LOCAL_STATE_FILE, 'utf8')) as { dynamoEndpoint: string; tables: { access: string; domain: string } };
  return createBackOffice(createDocumentClient(localDynamoClient(state.dynamoEndpoint)), state.tables.access, undefined, state.tables.domain);
}
