/**
 * A document client on DynamoDB Local whose transactions carry an event
 * write that cannot succeed (the outbox Put's condition is made false), for
 * tests showing that a change and its business event are written together
 * or not at all.
 */
import { localDocumentClient } from '../../local/local-stack';

export function clientFailingEventWrites(endpoint: string) {
  const client = localDocumentClient(endpoint);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'TransactWriteItemsCommand') {
        const input = args.input as { TransactItems: { Put?: { Item: Record<string, unknown>; ConditionExpression?: string } }[] };
        for (const item of input.TransactItems) {
          const pk = item.Put?.Item.pk as string | { S?: string } | undefined;
          if ((typeof pk === 'string' ? pk : pk?.S)?.startsWith('EVENTS#')) item.Put!.ConditionExpression = 'attribute_exists(pk)';
        }
      }
      return next(args);
    },
    { step: 'initialize', name: 'failEventWrite' },
  );
  return client;
}
