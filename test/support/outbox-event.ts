/** An outbox event of a record, as the fan-out hands it to Deliveries.createForEvent (delivery tests). */
import { newEventId, type EventEnvelope } from '../../lambdas/outbox/outbox';

export const recordEventOf = (partnerId: string, at: Date, recordId = 'rec_test'): EventEnvelope => ({
  id: newEventId(at),
  type: 'record.created',
  api_version: 'v1',
  partner_id: partnerId,
  created_at: at.toISOString(),
  data: { record_id: recordId },
});
