/**
 * One DynamoDB Local for the whole test run (vitest globalSetup). Each test
 * file creates its own uniquely named tables on it, so files run in parallel
 * without sharing data.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoLocal, type DynamoLocal } from '../../local/dynamo-local';

let dynamo: DynamoLocal | undefined;

export async function setup(project: TestProject) {
  dynamo = await startDynamoLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
}

export async function teardown() {
  await dynamo?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
