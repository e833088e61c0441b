/**
 * The sweep of test/support/request-path-sweep.ts: one operation, sent through the local front, with a
 * fault at each DynamoDB call it makes (local/fault-injection.ts), then retried as its caller would, and what the
 * tables hold afterwards compared with a run that met no fault.
 *
 * What is compared is the count of items by kind in both tables (`type` in the access table, `kind` in the domain
 * table, the key's prefix otherwise), leaving out the admission's counter items (`sk = LIMITS`), which every request
 * changes by design: one more item of a kind is a duplicate (a second ticket, message, key or event), one fewer a lost
 * write.
 */
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FaultEffect, FaultPlan } from '../../local/fault-injection';
import type { TestStack } from './test-stack';

export interface SweepRequest {
  readonly method: string;
  /** Relative to the stack's base URL. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

export interface Scenario {
  /** Fresh state for one request (an invitation to claim, a key to revoke) and the request; a retry sends it again. */
  prepare(): Promise<SweepRequest>;
  /** What a retry after an error may answer, when not the fault-free answer (with why, in the scenario). */
  readonly retryAnswers?: readonly number[];
  /** Kinds of item whose count a caller's retry may change otherwise (a second session of a second sign-in), each with why. */
  readonly retryMayDiffer?: Readonly<Record<string, string>>;
  /** A page (HTML), which neither OpenAPI document describes: its answer is not checked against one. */
  readonly page?: boolean;
}

export type Counts = ReadonlyMap<string, number>;

export const SWEPT_FAULTS = ['fail', 'lose-answer', 'fail-after', 'crash-after'] as const satisfies readonly FaultEffect[];
export type SweptFault = (typeof SWEPT_FAULTS)[number];

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem']);
export const isWrite = (call: string) => WRITES.has(call);

/** Items by kind in both tables (the admission's counter items left out). */
export async function countItems(client: DynamoDBDocumentClient, tables: Readonly<Record<string, string>>): Promise<Counts> {
  const counts = new Map<string, number>();
  for (const [name, table] of Object.entries(tables)) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start, ConsistentRead: true }));
      for (const item of page.Items ?? []) {
        if (item.sk === 'LIMITS') continue;
        const kind = `${name}:${String(item.type ?? item.kind ?? `${String(item.pk).split('#')[0]}/${String(item.sk).split('#')[0]}`)}`;
        counts.set(kind, (counts.get(kind) ?? 0) + 1);
      }
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return counts;
}

/** What changed from `before` to `after`, by kind (only kinds that changed). */
export function countChange(before: Counts, after: Counts): Record<string, number> {
  const change: Record<string, number> = {};
  for (const kind of new Set([...before.keys(), ...after.keys()])) {
    const d = (after.get(kind) ?? 0) - (before.get(kind) ?? 0);
    if (d !== 0) change[kind] = d;
  }
  return change;
}

export interface Answer {
  readonly status: number;
  readonly code?: string;
}

export async function sendRequest(stack: TestStack, request: SweepRequest, page = false): Promise<Answer> {
  const body = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  const init = { method: request.method, headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...request.headers }, body };
  // Every answer of an operation is checked against its document (stack.call); a page's HTML has none.
  const response = page ? await fetch(`${stack.baseUrl}${request.path}`, init) : await stack.call(request.path, init);
  const text = await response.text();
  let code: string | undefined;
  try {
    const json = JSON.parse(text) as { error?: { code?: string }; code?: string };
    code = json.error?.code ?? json.code;
  } catch {
    code = undefined;
  }
  return { status: response.status, code };
}

/** The DynamoDB calls one request made, in order, each with its rank among the calls of its kind (a rule's `nth`). */
export function callsOf(faults: FaultPlan): { call: string; nth: number }[] {
  const seen = new Map<string, number>();
  return faults
    .trace()
    .filter((c) => c.component === 'api' && /^[A-Z]/.test(c.call))
    .map((c) => {
      const nth = (seen.get(c.call) ?? 0) + 1;
      seen.set(c.call, nth);
      return { call: c.call, nth };
    });
}
