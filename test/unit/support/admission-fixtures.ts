/**
 * Admission against a mocked DynamoDBDocumentClient: the failures DynamoDB
 * answers with (a condition failure carrying the marshalled old image, as
 * with ReturnValuesOnConditionCheckFailure ALL_OLD; throttling; timeouts),
 * the fixed windows at a given instant computed independently of the code
 * under test, and a readable form of the update expressions sent.
 */
import { ConditionalCheckFailedException, DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';

export const documentClient = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
);

/** What DynamoDB throws when a condition fails; the document client leaves `Item` marshalled. */
export function conditionFailed(old?: Record<string, unknown>): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: { httpStatusCode: 400 },
    ...(old ? { Item: marshall(old, { removeUndefinedValues: true }) } : {}),
  });
}

export const throttled = () =>
  new ProvisionedThroughputExceededException({ message: 'Rate of requests exceeds the allowed throughput', $metadata: { httpStatusCode: 400 } });

/** What the SDK throws when its request timeout elapses. */
export const timedOut = () => Object.assign(new Error('Connection timed out after 1000 ms'), { name: 'TimeoutError' });

/** Window ids and ends (Unix seconds) at an instant: UTC-aligned fixed windows. */
export function windowsAt(now: Date) {
  const seconds = now.getTime() / 1000;
  const minute = Math.floor(seconds / 60);
  const hour = Math.floor(seconds / 3600);
  const day = Math.floor(seconds / 86_400);
  return { minute, hour, day, minuteEnd: (minute + 1) * 60, hourEnd: (hour + 1) * 3600, dayEnd: (day + 1) * 86_400 };
}

/**
 * An update's expressions with every placeholder replaced by the name or
 * the (JSON) value it stands for, e.g. `q_key_minute.n < 60`.
 */
export function resolveUpdate(input: Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>) {
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  const resolve = (expression: string | undefined) =>
    (expression ?? '').replace(/#\w+|:\w+/g, (token) => {
      if (token.startsWith('#')) {
        if (!(token in names)) throw new Error(`Undefined name placeholder ${token}`);
        return names[token];
      }
      if (!(token in values)) throw new Error(`Undefined value placeholder ${token}`);
      return JSON.stringify(values[token]);
    });
  return { update: resolve(input.UpdateExpression), condition: resolve(input.ConditionExpression) };
}

/** Placeholders declared but used by neither expression (DynamoDB rejects the request when there are any). */
export function unusedPlaceholders(input: Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>) {
  const used = new Set(`${input.UpdateExpression ?? ''} ${input.ConditionExpression ?? ''}`.match(/#\w+|:\w+/g) ?? []);
  return [...Object.keys(input.ExpressionAttributeNames ?? {}), ...Object.keys(input.ExpressionAttributeValues ?? {})].filter((p) => !used.has(p));
}

/** The lease an admission write takes (`leases.<id> = <expiry>` or a new map), if any. */
export function leaseTakenBy(input: UpdateCommandInput): { id: string; expiresAtMs: number } | undefined {
  const { update } = resolveUpdate(input);
  const added = /leases\.(\w+) = (\d+)/.exec(update);
  if (added) return { id: added[1], expiresAtMs: Number(added[2]) };
  const created = /leases = (\{[^}]*\})/.exec(update);
  if (!created) return undefined;
  const [[id, expiresAtMs]] = Object.entries(JSON.parse(created[1]) as Record<string, number>);
  return { id, expiresAtMs };
}

/** A gate that holds calls until released, to observe which calls are in flight together. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * resolveUpdate without the admission and compensation stamps (`adm`, `undo`),
 * which admission-store.test.ts covers: what is left is what the write counts
 * and checks.
 */
export function resolveCounting(input: Parameters<typeof resolveUpdate>[0]) {
  const { update, condition } = resolveUpdate(input);
  const isStamp = (clause: string) => /^(adm|undo) = "\w+"$/.test(clause) || /^\(attribute_not_exists\((adm|undo)\) OR \1 <> "\w+"\)$/.test(clause);
  const sets = update.replace(/^SET (.*?)(?= REMOVE |$)/, (_, list: string) => {
    // JSON values carry no ", ": clauses split cleanly.
    const kept = list.split(', ').filter((clause) => !isStamp(clause));
    return kept.length > 0 ? `SET ${kept.join(', ')}` : '';
  });
  return { update: sets.trim(), condition: condition.split(' AND ').filter((clause) => !isStamp(clause)).join(' AND ') };
}
