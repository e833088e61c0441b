/**
 * Exactly once for a conditional single-item write whose answer may be lost.
 *
 * DynamoDB can apply a write and lose its answer (a timeout, a reset connection). The SDK then sends the
 * same request again, and a conditional write's second try is judged against its own first try's effect:
 * `two_factor_step < :step` fails on the step it just wrote, `attribute_not_exists(pk)` on the item it just
 * put. Taken as a refusal, the caller answers something that did not happen (a correct code "wrong", a
 * session that exists "failed").
 *
 * The idiom, one place for every site (the admission keeps its own stamp, `adm`, the same idea on items it owns:
 * limits/admission-store.ts says why; a webhook delivery's claim stamps its claim id):
 * - every try of one write carries the same fresh stamp (`write_stamp`), written with the change;
 * - the write asks for the item as it stood when its condition failed (ReturnValuesOnConditionCheckFailure);
 * - a failed condition whose old image carries this write's stamp is this write's own earlier try: applied.
 *   Any other failure is a genuine refusal, with the item as it stood for the caller to explain.
 *
 * A concurrent, conflicting writer has another stamp, so it is still refused: of two sign-ins with one code,
 * one wins. The stamp is overwritten by the item's next stamped write; only the write's own retries (which
 * follow within seconds) read it.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionOldImage, isConditionFailure } from './conditions';

/** The attribute a stamped write leaves on its item. */
export const WRITE_STAMP = 'write_stamp';

export const newWriteStamp = (): string => randomUUID();

export type WriteOnceOutcome =
  /** The write took effect; `replayed`: it was this write's own earlier try whose answer was lost. */
  | { readonly applied: true; readonly replayed: boolean; readonly attributes?: Record<string, unknown> }
  /** The condition genuinely failed: `old` is the item as it stood (undefined: there was none). */
  | { readonly applied: false; readonly old: Record<string, unknown> | undefined };

type SingleWrite = PutCommand | UpdateCommand;

/** `SET #write_stamp = :write_stamp` added to an update expression (DynamoDB takes its clauses in any order, each once). */
export function stampedUpdateExpression(expression: string): string {
  const assignment = '#write_stamp = :write_stamp';
  return /\bSET\b/i.test(expression) ? expression.replace(/\bSET\b/i, `SET ${assignment},`) : `SET ${assignment} ${expression}`;
}

/** The command's input with the stamp written and the old image asked for. */
function stamped(command: SingleWrite, stamp: string): SingleWrite {
  const input = command.input as unknown as Record<string, unknown>;
  if (command instanceof PutCommand) {
    return new PutCommand({
      ...command.input,
      Item: { ...command.input.Item, [WRITE_STAMP]: stamp },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  }
  const update = command as UpdateCommand;
  return new UpdateCommand({
    ...update.input,
    UpdateExpression: stampedUpdateExpression(String(input.UpdateExpression ?? '')),
    ExpressionAttributeNames: { ...update.input.ExpressionAttributeNames, '#write_stamp': WRITE_STAMP },
    ExpressionAttributeValues: { ...update.input.ExpressionAttributeValues, ':write_stamp': stamp },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
}

/**
 * Send a conditional Put or Update once, whatever the SDK retries: applied (also when a lost answer's retry found
 * its own effect), or refused with the item as it stood. Errors other than a failed condition are thrown.
 */
export async function writeOnce(client: DynamoDBDocumentClient, command: SingleWrite, stamp: string = newWriteStamp()): Promise<WriteOnceOutcome> {
  try {
    const output = await client.send(stamped(command, stamp) as UpdateCommand);
    return { applied: true, replayed: false, attributes: output.Attributes };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const old = conditionOldImage(error);
    if (old?.[WRITE_STAMP] === stamp) return { applied: true, replayed: true, attributes: old };
    return { applied: false, old };
  }
}

/**
 * As writeOnce, for a caller that has nothing to explain: a genuine refusal throws `refused(old)`.
 */
export async function writeOnceOrThrow(client: DynamoDBDocumentClient, command: SingleWrite, refused: (old: Record<string, unknown> | undefined) => Error, stamp?: string): Promise<void> {
  const outcome = await writeOnce(client, command, stamp);
  if (!outcome.applied) throw refused(outcome.old);
}

/**
 * A conditional Delete whose answer may be lost: a deleted item keeps no stamp, so the retry of an applied delete
 * finds no item. `gone` decides: when the condition failed with no item left, the delete's effect holds (the item is
 * gone, by this try or an earlier one), which is what a delete-to-absent means. A failure on an item that still exists
 * is a genuine refusal.
 */
export async function deleteOnce(client: DynamoDBDocumentClient, command: DeleteCommand): Promise<WriteOnceOutcome> {
  try {
    const output = await client.send(new DeleteCommand({ ...command.input, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
    return { applied: true, replayed: false, attributes: output.Attributes };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const old = conditionOldImage(error);
    return old === undefined ? { applied: true, replayed: true } : { applied: false, old };
  }
}
