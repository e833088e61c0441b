/**
 * The typed client's types are generated from the partner API's document (scripts/client-types.ts), never edited: its
 * schema types, its method for each operation, and its business event types from the document's webhooks, which lambdas/outbox/business-events.ts
 * declares. The type check (`npm test` runs it first) fails when the client lacks an event type the service emits, or
 * types one's data otherwise.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createPartnerClient, OPERATION_METHODS, type PartnerClient } from '../../../client/src/client';
import type { operations, webhooks } from '../../../client/src/schema.generated';
import { BUSINESS_EVENT_TYPES, type BusinessEvent as ClientEvent, type BusinessEventType as ClientEventType } from '../../../client/src/events.generated';
import { BUSINESS_EVENTS, type BusinessEvent as ServiceEvent, type BusinessEventType as ServiceEventType } from '../../../lambdas/outbox/business-events';
import { CLIENT_EVENTS_FILE, CLIENT_METHODS_FILE, CLIENT_MODELS_FILE, CLIENT_TYPES_FILE, renderClientEvents, renderClientMethods, renderClientModels, renderClientTypes } from '../../../scripts/client-types';

const committed = (file: string) => readFileSync(join(import.meta.dirname, '..', '..', '..', file), 'utf8');

describe('the client’s generated types', () => {
  it('client/src/schema.generated.ts is committed as generated: run `npm run openapi` after changing a route or a contract', async () => {
    expect(committed(CLIENT_TYPES_FILE)).toBe(await renderClientTypes());
  });

  it('client/src/events.generated.ts is committed as generated: run `npm run openapi` after changing an event', () => {
    expect(committed(CLIENT_EVENTS_FILE)).toBe(renderClientEvents());
  });

  it('client/src/methods.generated.ts is committed as generated: run `npm run openapi` after changing a route or a contract', () => {
    expect(committed(CLIENT_METHODS_FILE)).toBe(renderClientMethods());
  });

  it('client/src/models.generated.ts is committed as generated: one model type per named schema, the entry exports them', () => {
    expect(committed(CLIENT_MODELS_FILE)).toBe(renderClientModels());
    expect(committed('client/src/index.ts')).toContain("export type * from './models.generated.js';");
  });

  it('types a generated method by the document: its path parameters, its body, and the data it answers', () => {
    expectTypeOf<PartnerClient['getRecord']>().parameters.toEqualTypeOf<[partnerId: string, recordId: string]>();
    expectTypeOf<Awaited<ReturnType<PartnerClient['getTicket']>>['data']['status']>().toBeString();
    expectTypeOf<Parameters<PartnerClient['createInvitation']>[1]['game']>().toEqualTypeOf<'minecraft' | 'fps'>();
  });

  it('lists every business event type the service emits, in its order', () => {
    expect(BUSINESS_EVENT_TYPES).toEqual(BUSINESS_EVENTS.map((event) => event.type));
    expectTypeOf<ClientEventType>().toEqualTypeOf<ServiceEventType>();
  });

  it('types each event’s data as the service emits it', () => {
    type ServiceData = { [T in ServiceEventType]: Extract<ServiceEvent, { type: T }>['data'] };
    type ClientData = { [T in ClientEventType]: ClientEvent<T>['data'] };
    expectTypeOf<ServiceData>().toMatchTypeOf<ClientData>();
    expectTypeOf<ClientEvent<'entitlement.updated'>['data']['game']>().toEqualTypeOf<'minecraft' | 'fps'>();
    expectTypeOf<ClientEvent<'invitation.joined'>['type']>().toEqualTypeOf<'invitation.joined'>();
  });

  it('has a method for every operation of the document, and no operation without one type-checks', () => {
    const document = JSON.parse(committed('docs/openapi.json')) as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    expect(Object.keys(OPERATION_METHODS).sort()).toEqual(ids.sort());
    const client = createPartnerClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'pak_live_x' }) as Record<string, unknown>;
    for (const method of Object.values(OPERATION_METHODS)) expect(typeof client[method], method).toBe('function');
    type Operations = Exclude<keyof operations, keyof webhooks>;
    // @ts-expect-error: the operation `ticket` has no method.
    const missing = { ...OPERATION_METHODS, ticket: undefined } satisfies { readonly [K in Operations]: keyof PartnerClient };
    expect(missing.ticket).toBeUndefined();
  });
});
