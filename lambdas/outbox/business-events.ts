/**
 * The business events of API v1, declared once: each type, when it is emitted, and its `data` (only the fields the
 * contract lists for it, in its order). What reads this list:
 * - the outbox (outbox.ts): the event a business action may put, typed by it, and a body's `data` field order;
 * - both OpenAPI documents' `webhooks` section (scripts/openapi-document.ts), one entry per type;
 * - the typed client's event types (client/src/events.generated.ts, written by `npm run openapi`);
 * - docs/webhooks.md's events table (scripts/events-doc.ts, also written by `npm run openapi`).
 * A new type is one entry here; the delivery pipeline ignores types.
 *
 * Plain data, not zod: the delivery worker orders a body's fields by it, and its bundle carries no schema library.
 */
import { GAME_GROUPS } from '../records/games';

/** A data field: a string, or one of these strings. */
export type EventField = 'string' | readonly string[];

/** The data shapes, each named once (its OpenAPI component). */
export const EVENT_DATA = {
  RecordEventData: { record_id: 'string' },
  TicketEventData: { ticket_id: 'string', invitation_id: 'string', status: 'string' },
  EntitlementEventData: { game: GAME_GROUPS },
} as const satisfies Record<string, Readonly<Record<string, EventField>>>;

export const BUSINESS_EVENTS = [
  { type: 'record.created', emittedWhen: 'the organization gets a new record, or a record is moved into it', data: 'RecordEventData' },
  { type: 'record.updated', emittedWhen: 'an organization record changes, including a corrected result', data: 'RecordEventData' },
  { type: 'record.deleted', emittedWhen: 'a record is deleted or leaves the organization (target organization not revealed)', data: 'RecordEventData' },
  { type: 'invitation.joined', emittedWhen: 'a one-time invitation successfully joins a formal ticket', data: 'TicketEventData' },
  { type: 'ticket.message.created', emittedWhen: 'a user or staff message is added to an organization ticket', data: 'TicketEventData' },
  { type: 'ticket.status.updated', emittedWhen: 'a system action such as close, reopen or assignment occurs on a ticket', data: 'TicketEventData' },
  { type: 'entitlement.updated', emittedWhen: 'organization entitlement granted, changed, used, or a period starts or ends', data: 'EntitlementEventData' },
] as const satisfies readonly { readonly type: string; readonly emittedWhen: string; readonly data: keyof typeof EVENT_DATA }[];

type Declared = (typeof BUSINESS_EVENTS)[number];
export type BusinessEventType = Declared['type'];

/** The data a shape declares: a string field as string, an enumerated one as its values. */
export type EventDataOf<Shape> = { readonly [K in keyof Shape]: Shape[K] extends readonly (infer V)[] ? V : string };

/** A business event as an action puts it in the outbox: its type and that type's data. */
export type BusinessEvent = {
  [E in Declared as E['type']]: { readonly type: E['type']; readonly data: EventDataOf<(typeof EVENT_DATA)[E['data']]> };
}[BusinessEventType];

/** The data fields of a type in the contract's order (undefined for a type this version does not know). */
export function dataFieldsOf(type: string): readonly string[] | undefined {
  const declared = BUSINESS_EVENTS.find((event) => event.type === type);
  return declared ? Object.keys(EVENT_DATA[declared.data]) : undefined;
}
