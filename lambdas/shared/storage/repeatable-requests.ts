/**
 * A request its caller may send again: the operator re-running an admin command after an error, when the first run's
 * write may have been made with every answer lost (docs/faults.md). The caller names the request (a request id; the
 * admin CLI's `--request-id`), and the same request makes the same write:
 *
 * - what the request creates under a key of its own (an organization, an account, an entitlement use) gets an id
 *   derived from the command and the request id (`requestScopedId`), so a re-run's `attribute_not_exists(pk)` meets the
 *   first run's item, which carries the request's fingerprint (`request_fp`; the account and organization items,
 *   which admission writes on every request and keeps under 1 KB, carry none: their own fields are compared);
 * - any other change (a delete, an update, a grant in its owner's partition) puts a request record in its transaction
 *   (`requestRecordPut`, kept a day), and a re-run's transaction fails on it and answers the first run's result:
 *
 * | item | pk | sk | holds |
 * |---|---|---|---|
 * | request | `REQUEST#<digest of command and request id>` | `REQUEST` | the command, the request's fingerprint, the first run's result, `ttl` |
 *
 * The fingerprint is a digest of the command's arguments: the same request id with other arguments is refused
 * (`RequestIdReused`), never taken for the first request. Nothing here is read or written without a request id, so
 * callers that give none (the partner API, the local seed) pay nothing.
 */
import { createHash } from 'node:crypto';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** What a request id may be: long enough not to be reused by accident, and safe in a shell and a log line. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;

/** How long a request record answers a re-run: at least a day (DynamoDB's TTL removes it days later, never earlier). */
export const REQUEST_RECORD_SECONDS = 86_400;

/** One request: the command, the caller's id for it, and the digest of its arguments. */
export interface RepeatableRequest {
  readonly command: string;
  readonly id: string;
  readonly fingerprint: string;
}

/** The attribute holding the fingerprint on an item a request created, and on its request record. */
export const REQUEST_FP = 'request_fp';

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** JSON with object keys sorted and undefined members left out: equal arguments give equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonical(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The request `id` of `command` with these arguments (as the caller gave them: defaults filled in later do not count). */
export function repeatableRequest(command: string, id: string, args: Readonly<Record<string, unknown>>): RepeatableRequest {
  if (!REQUEST_ID_PATTERN.test(id)) throw new RangeError(`A request id is 8–128 letters, digits, - or _: ${JSON.stringify(id)}`);
  return { command, id, fingerprint: digest(`request-fp/v1\n${command}\n${canonical(args)}`).slice(0, 32) };
}

/** The id of what the request creates, in the code's id format (`<prefix>_` and 20 hex digits): the same for every run. */
export function requestScopedId(prefix: string, request: RepeatableRequest): string {
  return `${prefix}_${digest(`request-id/v1\n${request.command}\n${request.id}`).slice(0, 20)}`;
}

export const requestRecordKey = (request: RepeatableRequest) => ({
  pk: `REQUEST#${digest(`request-record/v1\n${request.command}\n${request.id}`).slice(0, 32)}`,
  sk: 'REQUEST',
});

/** The request record's Put for the change's transaction: written once, and when it exists the item as it is comes back. */
export function requestRecordPut(table: string, request: RepeatableRequest, result: object, now: Date) {
  return {
    Put: {
      TableName: table,
      Item: {
        ...requestRecordKey(request),
        kind: 'request',
        command: request.command,
        request_id: request.id,
        [REQUEST_FP]: request.fingerprint,
        result,
        at: now.toISOString(),
        ttl: Math.floor(now.getTime() / 1000) + REQUEST_RECORD_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  };
}

/** The request record, if the request was made (read consistently: a re-run follows its first run within seconds). */
export async function readRequestRecord(client: DynamoDBDocumentClient, table: string, request: RepeatableRequest): Promise<Record<string, unknown> | undefined> {
  const { Item } = await client.send(new GetCommand({ TableName: table, Key: requestRecordKey(request), ConsistentRead: true }));
  return Item;
}

/**
 * The item whose condition cancelled a transaction (entry `index`, sent with ReturnValuesOnConditionCheckFailure
 * ALL_OLD), if that entry's condition is why; the document client leaves cancellation reasons marshalled.
 */
export function cancelledItem(error: unknown, index: number): Record<string, unknown> | undefined {
  const reasons = (error as { CancellationReasons?: Array<{ Code?: string; Item?: Record<string, unknown> }> } | undefined)?.CancellationReasons;
  const reason = reasons?.[index];
  if (reason?.Code !== 'ConditionalCheckFailed' || !reason.Item) return undefined;
  return unmarshall(reason.Item as Parameters<typeof unmarshall>[0]);
}

/** The request id was used before with other arguments (or for another item): the first request stands, this one is not made. */
export class RequestIdReused extends Error {
  constructor(readonly request: RepeatableRequest) {
    super(`Request id ${request.id} was already used for another ${request.command} (other arguments): nothing was changed; a new change needs a new request id`);
    this.name = 'RequestIdReused';
  }
}

/**
 * What a re-run meets: an item (a request record, or the item the request created) carrying the first run's fingerprint.
 * The same request: the item; another request under the same id: RequestIdReused.
 */
export function sameRequest<T extends Record<string, unknown>>(request: RepeatableRequest, item: T): T {
  if (item[REQUEST_FP] !== request.fingerprint) throw new RequestIdReused(request);
  return item;
}
