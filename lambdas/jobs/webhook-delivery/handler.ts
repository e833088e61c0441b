/**
 * The webhook delivery worker: the delivery queue's messages, each one attempt of one delivery
 * (lambdas/webhooks/delivery-worker.ts). Messages that could not be handled are reported alone
 * (batch item failures) and come back after the visibility timeout; after a few receives the
 * queue moves them to its dead-letter queue.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { observedJob } from '../../shared/observability/invocation';
import { sharedPlatform } from '../../shared/platform';
import { deliverBatch } from '../../webhooks/delivery-worker';

export const handler = observedJob('webhook-delivery', (event: SQSEvent): Promise<SQSBatchResponse> => deliverBatch(event, sharedPlatform()));
