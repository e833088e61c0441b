/**
 * Every business event the outbox stores, as its webhook body carries it (outbox.ts eventBody), matches its entry of
 * both OpenAPI documents' `webhooks` section; a body with a field its type does not list does not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { BUSINESS_EVENTS, EVENT_DATA, type BusinessEvent } from '../../../lambdas/outbox/business-events';
import { eventBody, eventItem } from '../../../lambdas/outbox/outbox';
import { OPENAPI_SURFACES } from '../../../scripts/openapi-document';

type Json = Record<string, any>;

/** A value for each data field: a string, or the first of its allowed values. */
const sampleData = (shape: Readonly<Record<string, unknown>>) =>
  Object.fromEntries(Object.entries(shape).map(([field, kind]) => [field, Array.isArray(kind) ? kind[0] : `${field}-1`]));

describe.each(OPENAPI_SURFACES.map((surface) => ({ file: surface.file })))('$file webhooks', ({ file }) => {
  const document = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', file), 'utf8')) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema(document, 'doc');
  const bodySchema = (type: string) => {
    const schema = document.webhooks[type].post.requestBody.content['application/json'].schema as Json;
    return ajv.compile({ $ref: `doc${schema.$ref as string}` });
  };

  it('has one entry per declared type, signed headers included', () => {
    expect(Object.keys(document.webhooks as Json)).toEqual(BUSINESS_EVENTS.map((event) => event.type));
    for (const entry of Object.values(document.webhooks as Record<string, Json>)) {
      expect(entry.post.parameters.map((p: Json) => p.$ref)).toEqual([
        '#/components/parameters/X-Service-Event-Id',
        '#/components/parameters/X-Service-Timestamp',
        '#/components/parameters/X-Service-Signature',
      ]);
    }
  });

  it.each(BUSINESS_EVENTS.map((event) => ({ type: event.type, data: event.data })))('$type: the body the outbox stores matches it', ({ type, data }) => {
    const event = { type, data: sampleData(EVENT_DATA[data]) } as BusinessEvent;
    const { envelope } = eventItem('org_0123456789abcdef0123', event, new Date('2026-11-29T12:00:00.000Z'));
    const validate = bodySchema(type);
    const body = JSON.parse(eventBody(envelope)) as Json;
    expect(validate(body), ajv.errorsText(validate.errors)).toBe(true);
    expect(validate({ ...body, data: { ...body.data, remote_information: 'x' } })).toBe(false);
    expect(validate({ ...body, type: 'record.archived' })).toBe(false);
  });
});
