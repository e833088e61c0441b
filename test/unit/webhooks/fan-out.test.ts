/**
 * The fan-out handler on a mocked DynamoDB (aws-sdk-client-mock): only new
 * outbox events count; each becomes a delivery and a first-attempt message per
 * callback that was active when the event happened (no backlog); a failing
 * record and every later one are reported, so the stream's checkpoint is the
 * first failure.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createPlatform } from '../../../lambdas/shared/platform';
import type { DeliveryMessage } from '../../../lambdas/webhooks/delivery-schedule';
import { fanOutStreamEvent } from '../../../lambdas/webhooks/fan-out';

const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const dynamo = mockClient(documentClient);
const queued: DeliveryMessage[] = [];
const unused = async () => {
  throw new Error('not used by the fan-out');
};
const platform = createPlatform({
  documentClient,
  tables: { access: 'access-table' },
  edgeGuard: undefined,
  localSwitches: {
    ticketBridgeDown: () => false,
    webhooks: {
      queue: { send: async (message) => void queued.push(message) },
      visibility: { change: unused },
      scheduler: { schedule: unused },
      sealer: { seal: unused, open: unused },
      allowLocalWebhooks: false,
      waitScale: 1,
    },
  },
});

const event = (partnerId: string, createdAt: string) => ({
  id: `evt_${partnerId}`,
  type: 'record.created',
  api_version: 'v1',
  partner_id: partnerId,
  created_at: createdAt,
  data: { record_id: 'rec_1' },
});

const record = (sequence: string, eventName: DynamoDBRecord['eventName'], image: Record<string, unknown>): DynamoDBRecord =>
  ({ eventName, dynamodb: { SequenceNumber: sequence, NewImage: marshall(image) } }) as unknown as DynamoDBRecord;
const outbox = (sequence: string, partnerId: string, createdAt = '2026-11-23T12:00:00.000Z') =>
  record(sequence, 'INSERT', { pk: `EVENTS#${partnerId}`, sk: `evt_${partnerId}`, kind: 'event', event: event(partnerId, createdAt) });

const callback = (partnerId: string, id: string, activatedAt: string) => ({
  pk: `ORG#${partnerId}`,
  sk: `WEBHOOK#${id}`,
  webhook_id: id,
  partner_id: partnerId,
  account_id: 'acc_1',
  status: 'active',
  activated_at: activatedAt,
});

beforeEach(() => {
  dynamo.reset();
  queued.length = 0;
});

describe('fanOutStreamEvent', () => {
  it('makes one delivery and one first-attempt message per callback active when the event happened, for new outbox events only', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [callback('org_a', 'wh_early', '2026-11-23T11:00:00.000Z'), callback('org_a', 'wh_late', '2026-11-23T13:00:00.000Z')] });
    dynamo.on(PutCommand).resolves({});
    const result = await fanOutStreamEvent(
      {
        Records: [
          record('1', 'MODIFY', { kind: 'event', event: event('org_a', '2026-11-23T12:00:00.000Z') }),
          record('2', 'INSERT', { kind: 'record', pk: 'REC#1' }),
          outbox('3', 'org_a'),
        ],
      },
      platform,
    );
    expect(result).toEqual({ batchItemFailures: [] });
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(1);
    const puts = dynamo.commandCalls(PutCommand).map((call) => call.args[0].input);
    expect(puts).toHaveLength(1);
    expect(puts[0]).toMatchObject({ TableName: 'access-table', Item: { pk: 'DELIVERIES#wh_early', sk: 'dlv_org_a_early', status: 'pending', attempts: 0 }, ConditionExpression: 'attribute_not_exists(pk)' });
    expect(queued).toEqual([{ v: 1, partner_id: 'org_a', webhook_id: 'wh_early', account_id: 'acc_1', delivery_id: 'dlv_org_a_early', attempt: 1, generation: 0 }]);
  });

  it('reports the first failing record and every later one', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [] });
    dynamo.on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'ORG#org_b', ':prefix': 'WEBHOOK#', ':active': 'active' } }).rejects(new Error('throttled'));
    const result = await fanOutStreamEvent({ Records: [outbox('1', 'org_a'), outbox('2', 'org_b'), outbox('3', 'org_c'), record('4', 'REMOVE', { kind: 'event' })] }, platform);
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['2', '3', '4']);
  });
});
