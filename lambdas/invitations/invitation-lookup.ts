/**
 * One invitation by id, strongly consistent, without the store's code (invitation-store.ts): the player site's
 * possession check reads it before admission, on the cold path, where the rest of the store is not needed yet.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { InvitationItem } from './invitation-model';

export const invitationKey = (id: string) => ({ pk: `INV#${id}`, sk: 'INV' });

export async function findInvitation(client: DynamoDBDocumentClient, table: string, id: string): Promise<InvitationItem | undefined> {
  const { Item } = await client.send(new GetCommand({ TableName: table, Key: invitationKey(id), ConsistentRead: true }));
  return Item as InvitationItem | undefined;
}
