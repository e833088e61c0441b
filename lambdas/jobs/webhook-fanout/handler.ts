/**
 * The webhook fan-out: the `domain` table's stream (new outbox event items only, filtered by the
 * event source mapping) → one delivery per active callback of the event's organization, queued
 * for the delivery worker (lambdas/webhooks/fan-out.ts). A failed record is reported alone
 * (batch item failures), so the stream retries it without redoing the others.
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { observedJob } from '../../shared/observability/invocation';
import { sharedPlatform } from '../../shared/platform';
import { fanOutStreamEvent } from '../../webhooks/fan-out';

export const handler = observedJob('webhook-fanout', (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => fanOutStreamEvent(event, sharedPlatform()));
