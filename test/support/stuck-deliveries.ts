/**
 * The invariant every test file with the local webhook pipeline ends on (test-stack.ts stop): no delivery is
 * stuck. A delivery is stuck when it is open (pending, attempting, retrying) and nothing of the pipeline will
 * move it: no message of it in the queue, no retry execution holding it, no worker holding its attempt (a live
 * lease). Only the sweeper would find it then, a grace later: the pipeline lost its attempt.
 */
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { LocalWebhookPipeline } from '../../local/webhook-pipeline';

export interface OpenDelivery {
  readonly delivery_id: string;
  readonly status: string;
  readonly attempts: number;
  readonly due_at?: number;
  readonly attempt_deadline?: number;
}

/** The deliveries still open in the access table (every item: a test file's table is small). */
export async function openDeliveries(stack: { readonly client: DynamoDBDocumentClient; readonly tables: { readonly access: string } }): Promise<OpenDelivery[]> {
  const open: OpenDelivery[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await stack.client.send(
      new ScanCommand({
        TableName: stack.tables.access,
        FilterExpression: '#type = :delivery AND #status IN (:p, :a, :r)',
        ExpressionAttributeNames: { '#type': 'type', '#status': 'status' },
        ExpressionAttributeValues: { ':delivery': 'delivery', ':p': 'pending', ':a': 'attempting', ':r': 'retrying' },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      open.push({ delivery_id: item.delivery_id, status: item.status, attempts: item.attempts, due_at: item.due_at, attempt_deadline: item.attempt_deadline });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return open;
}

/**
 * The open deliveries nothing will move, checked again for a few seconds (a fan-out between its Put and its
 * SendMessage is not stuck): those that stayed so throughout.
 */
export async function stuckDeliveries(
  stack: { readonly client: DynamoDBDocumentClient; readonly tables: { readonly access: string } },
  pipeline: LocalWebhookPipeline,
  settleMs = 5000,
): Promise<OpenDelivery[]> {
  const deadline = Date.now() + settleMs;
  let candidates: OpenDelivery[] | undefined;
  for (;;) {
    const held = pipeline.heldDeliveryIds();
    const now = Date.now();
    const stuck = (await openDeliveries(stack)).filter((d) => !held.has(d.delivery_id) && !(d.status === 'attempting' && (d.attempt_deadline ?? 0) > now));
    // Stuck throughout: in this check and every earlier one.
    candidates = candidates === undefined ? stuck : stuck.filter((d) => candidates!.some((c) => c.delivery_id === d.delivery_id));
    if (candidates.length === 0 || Date.now() > deadline) return candidates;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
