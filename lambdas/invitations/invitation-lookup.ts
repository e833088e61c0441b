/**
 * One invitation by id, strongly consistent, without the store's code (invitation-store.ts): the player site's
 * possession check reads it before admission, on the cold path, where the rest of the store is not needed yet.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Platform } from '../shared/platform';
import { requireTable } from '../shared/storage/table-names';
import type { InvitationItem } from './invitation-model';

export const invitationKey = (id: string) => ({ pk: `INV#${id}`, sk: 'INV' });

export async function findInvitation(platform: Pick<Platform, 'documentClient' | 'tables'>, id: string): Promise<InvitationItem | undefined> {
  const { Item } = await platform.documentClient.send(new GetCommand({ TableName: requireTable(platform.tables, 'domain'), Key: invitationKey(id), ConsistentRead: true }));
  return Item as InvitationItem | undefined;
}
