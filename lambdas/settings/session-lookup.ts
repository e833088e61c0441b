/**
 * The pipeline's session lookup (one read of the session item: back-office/session-item.ts), without the back office:
 * it is a signed-in call's first round trip, so it loads with the handler, and the operations' code (the back office)
 * loads beside it (lambdas/shared/http/lazy-chunk.ts).
 */
import { lookupSession as lookup } from '../back-office/session-item';
import { requireTable } from '../shared/storage/table-names';
import type { SessionLookup } from './settings-pipeline';

export const lookupSession: SessionLookup = (token, platform) =>
  lookup({ client: platform.documentClient, table: requireTable(platform.tables, 'access'), clock: platform.clock }, token);
