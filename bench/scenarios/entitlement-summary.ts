/**
 * `GET /partners/{partner_id}/entitlements` through the local front with the
 * demo organization key: admission (3 parallel writes), then one Query of the
 * organization's grants (four here: counted and partly used, unlimited,
 * queued, expired) and the summary computed at query time. Baseline: a raw
 * GetItem in the same run.
 */
import { createBackOffice } from '../../lambdas/back-office/back-office';
import { localDocumentClient } from '../../local/local-stack';
import { authenticatedGetScenario } from './get-me';

const DAY = 86_400_000;

export const entitlementSummary = authenticatedGetScenario({
  scenario: 'entitlement-summary',
  label: 'GET /partners/{id}/entitlements',
  kind: 'organization',
  items: 3,
  operationCalls: 1,
  description: 'GET /partners/{partner_id}/entitlements with the demo organization key: admission, then one Query of the grants',
  path: async (context) => {
    const client = localDocumentClient(context.stack.dynamoEndpoint);
    try {
      const office = createBackOffice(client, context.stack.tables.access, undefined, context.stack.tables.domain);
      const owner = `partner:${context.demo.partner_id}`;
      const at = (days: number) => new Date(Date.now() + days * DAY).toISOString();
      await office.entitlements!.grant({ owner, game: 'minecraft', units: 100, startsAt: at(-10), expiresAt: at(30) });
      await office.entitlements!.use(owner, 'minecraft', 3);
      await office.entitlements!.grant({ owner, game: 'fps', unlimited: true, startsAt: at(-1), expiresAt: at(7) });
      await office.entitlements!.grant({ owner, game: 'minecraft', units: 50, startsAt: at(20), expiresAt: at(80) });
      await office.entitlements!.grant({ owner, game: 'fps', units: 25, startsAt: at(-60), expiresAt: at(-5) });
    } finally {
      client.destroy();
    }
    return `/partners/${context.demo.partner_id}/entitlements`;
  },
});
