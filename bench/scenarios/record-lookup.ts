/**
 * `GET /records/{uuid}` (public lookup) through the local front with the demo
 * personal key: admission (2 parallel writes) then one GetItem of the record's
 * uuid item, which holds the public projection. Baseline: a raw GetItem in
 * the same run. A record is put through the back office first.
 */
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { localDocumentClient } from '../../local/local-stack';
import { authenticatedGetScenario } from './get-me';

const UUID = 'USS-20260001-BenchLookup1';

export const recordLookup = authenticatedGetScenario({
  scenario: 'record-lookup',
  label: 'GET /records/{uuid}',
  kind: 'personal',
  items: 2,
  operationCalls: 1,
  description: 'GET /records/{uuid} with the demo personal key: admission, then one GetItem of the uuid item',
  path: async (context) => {
    const client = localDocumentClient(context.stack.dynamoEndpoint);
    try {
      const office = createBackOffice(client, context.stack.tables.access, undefined, context.stack.tables.domain);
      await office.records!.put(context.demo.partner_id, {
        uuid: UUID,
        player_name: 'Bench Player',
        game_category: 'Minecraft',
        game: 'Minecraft: Java Edition',
        checked_at: '2026-11-01T10:00:00Z',
        result: 'clean',
        checker_name: 'Bench Checker',
        public_notes: 'A record of typical size for the lookup benchmark.',
      });
    } finally {
      client.destroy();
    }
    return `/records/${UUID.toLowerCase()}`;
  },
});
