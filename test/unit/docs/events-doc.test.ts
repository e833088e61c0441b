/** docs/webhooks.md's events table is rendered from the business events' declaration: the two never drift apart. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUSINESS_EVENTS } from '../../../lambdas/outbox/business-events';
import { EVENTS_DOC_FILE, renderEventsTable, withEventsTable } from '../../../scripts/events-doc';

describe('docs/webhooks.md', () => {
  it('holds exactly what the declaration renders (run npm run openapi after changing an event)', () => {
    expect(readFileSync(join(import.meta.dirname, '..', '..', '..', EVENTS_DOC_FILE), 'utf8')).toContain(renderEventsTable());
  });

  it('gets a new row when an event is declared', () => {
    const added = [...BUSINESS_EVENTS, { type: 'record.archived', emittedWhen: 'a record is archived', data: 'RecordEventData' }] as unknown as typeof BUSINESS_EVENTS;
    expect(withEventsTable(`x\n${renderEventsTable()}\ny`, added)).toContain('| record.archived | a record is archived | record_id |');
  });
});
