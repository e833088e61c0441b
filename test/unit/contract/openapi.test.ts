/**
 * The OpenAPI documents: generated from the route table and the contracts,
 * committed, accepted by an independent validator, and complete. The partner
 * API's (docs/openapi.json): every partner route, every error code its
 * declaration implies, the envelopes and the rate-limit headers. Web
 * settings' (docs/settings-openapi.json): every settings route, the session
 * cookie, the cross-site request header, the data objects as they are and
 * the web-settings error shape. The player site is in neither.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '../../../lambdas/shared/errors';
import { errorCodesOf } from '../../../lambdas/shared/http/contract';
import { ROUTE_CONTRACTS } from '../../../lambdas/service/contracts';
import { ROUTES } from '../../../lambdas/service/routes';
import { frontAnswers } from '../../../lib/config/front-answers';
import {
  buildOpenApiDocument,
  CONTRACT_VERSION,
  OPENAPI_SURFACES,
  PARTNER_SURFACE,
  renderOpenApiDocument,
  SETTINGS_CONTRACT_VERSION,
  SETTINGS_SURFACE,
  type OpenApiSurface,
} from '../../../scripts/openapi-document';

const committed = (surface: OpenApiSurface) => readFileSync(join(import.meta.dirname, '..', '..', '..', surface.file), 'utf8');
type Response = { content: Record<string, { schema: Record<string, any> }>; headers: Record<string, unknown> };
type Operation = { operationId: string; security: unknown[]; parameters?: Record<string, unknown>[]; requestBody?: unknown; responses: Record<string, Response> };
const operationOf = (path: string, method: string, surface: OpenApiSurface = PARTNER_SURFACE) =>
  (buildOpenApiDocument(surface).paths as Record<string, Record<string, Operation>>)[path]?.[method];
const codesAt = (op: Operation, status: number) => op.responses[String(status)]?.content['application/json'].schema.properties.error.properties.code.enum as string[];
const settingsSchemas = (buildOpenApiDocument(SETTINGS_SURFACE).components as { schemas: Record<string, Record<string, any>> }).schemas;
/** The bodies an error response may have: its schema, the members of an `anyOf`, named ones resolved. */
const bodiesOf = (schema: Record<string, any>): Record<string, any>[] =>
  schema.anyOf ? (schema.anyOf as Record<string, any>[]).flatMap(bodiesOf) : schema.$ref ? [settingsSchemas[String(schema.$ref).split('/').pop() as string]] : [schema];
/** The functions' codes at a status of a web settings operation (the body without the envelope's `error`). */
const settingsCodesAt = (op: Operation, status: number) =>
  bodiesOf(op.responses[String(status)]?.content['application/json'].schema ?? {}).find((body) => !body.properties?.error)?.properties.code.enum as string[];

describe.each(OPENAPI_SURFACES.map((surface) => ({ file: surface.file, surface })))('$file', ({ surface }) => {
  it('is committed as generated: run `npm run openapi` after changing a route or a contract', () => {
    expect(committed(surface)).toBe(renderOpenApiDocument(surface));
  });

  it('is valid OpenAPI 3.1 for an independent validator (swagger-parser)', async () => {
    const api = (await SwaggerParser.validate(JSON.parse(committed(surface)))) as { openapi: string; info: { version: string } };
    expect(api.openapi).toBe('3.1.0');
    expect(api.info.version).toBe((surface.info as { version: string }).version);
  });
});

describe('the documents together', () => {
  it('declare every partner route in the partner document, every settings route in the settings document, and the player site in neither', () => {
    for (const route of ROUTES) {
      const contract = ROUTE_CONTRACTS[route.id];
      expect(contract, route.id).toBeDefined();
      expect(Object.keys(contract.query?.shape ?? {}).sort(), route.id).toEqual([...route.query].sort());
      // A contract with a body needs the route to take one (else the body is refused or never parsed), and back.
      expect(contract.body !== undefined, route.id).toBe(route.body === 'json');
      const method = route.method.toLowerCase();
      const [partner, settings] = [operationOf(route.path, method, PARTNER_SURFACE), operationOf(route.path, method, SETTINGS_SURFACE)];
      // Web settings, the sign-in and webhook callbacks' routes (their own functions) included.
      if (route.group === 'settings' || route.group === 'sign-in' || route.group === 'webhooks') expect([partner, settings?.operationId], route.id).toEqual([undefined, route.id]);
      else if (route.auth === 'player') expect([partner, settings], route.id).toEqual([undefined, undefined]);
      else expect([partner?.operationId, settings, route.auth], route.id).toEqual([route.id, undefined, expect.stringMatching(/^(none|key)$/)]);
    }
  });

  it('carry their own versions and titles', () => {
    expect(PARTNER_SURFACE.info).toMatchObject({ title: 'Partner API', version: CONTRACT_VERSION });
    expect(SETTINGS_SURFACE.info).toMatchObject({ title: expect.stringContaining('not part of the partner API'), version: SETTINGS_CONTRACT_VERSION });
  });
});

describe('the partner API document', () => {
  it('lists the codes each operation can answer, by status, in the error envelope', () => {
    const me = operationOf('/me', 'get');
    const health = operationOf('/health', 'get');
    expect(codesAt(me, 401)).toEqual(['INVALID_API_KEY']);
    expect(codesAt(me, 503)).toEqual(['RATE_LIMIT_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'WRITE_CONFLICT']);
    expect(codesAt(me, 400)).toEqual(expect.arrayContaining(['BODY_NOT_ALLOWED', 'CREDENTIALS_IN_URL', 'HTTPS_REQUIRED']));
    expect(codesAt(me, 429)).toEqual(['RATE_LIMITED']);
    expect(health.responses['401']).toBeUndefined();
    expect(health.security).toEqual([]);
    expect(me.security).toEqual([{ apiKey: [] }]);
  });

  it('carries the rate-limit headers on key routes and Retry-After on 429 and 503', () => {
    const me = operationOf('/me', 'get');
    expect(Object.keys(me.responses['200'].headers)).toEqual(
      expect.arrayContaining(['X-Request-Id', 'Cache-Control', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Policy']),
    );
    expect(Object.keys(me.responses['429'].headers)).toContain('Retry-After');
    expect(Object.keys(me.responses['503'].headers)).toContain('Retry-After');
    expect(Object.keys(operationOf('/health', 'get').responses['200'].headers)).not.toContain('X-RateLimit-Limit');
  });

  it('names no web-settings security, header or code', () => {
    const text = committed(PARTNER_SURFACE);
    for (const absent of ['settings_session', 'X-Settings-Request', 'SESSION_REQUIRED', 'CSRF_CHECK_FAILED', '/settings']) expect(text).not.toContain(absent);
  });
});

describe('the web settings document', () => {
  const settingsRoutes = ROUTES.filter((route) => route.group === 'settings' || route.group === 'sign-in');
  const operationOfRoute = (route: (typeof ROUTES)[number]) => operationOf(route.path, route.method.toLowerCase(), SETTINGS_SURFACE);

  it('asks for the session cookie on signed-in operations only', () => {
    expect((buildOpenApiDocument(SETTINGS_SURFACE).components as Record<string, any>).securitySchemes).toEqual({
      settingsSession: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'settings_session' }),
    });
    for (const route of settingsRoutes) {
      expect(operationOfRoute(route).security, route.id).toEqual(route.auth === 'session' ? [{ settingsSession: [] }] : []);
    }
  });

  it('asks for X-Settings-Request on every operation that is not a GET', () => {
    const header = { $ref: '#/components/parameters/X-Settings-Request' };
    for (const route of settingsRoutes) {
      const parameters = operationOfRoute(route).parameters ?? [];
      if (route.method === 'GET') expect(parameters, route.id).not.toContainEqual(header);
      else expect(parameters, route.id).toContainEqual(header);
    }
  });

  it('answers a success with the data object itself (no envelope), and the page with HTML', () => {
    const session = operationOf('/settings/api/session', 'get', SETTINGS_SURFACE).responses['200'].content['application/json'].schema;
    expect(session.required).toEqual(expect.arrayContaining(['account_id', 'email', 'two_factor', 'session_expires_at']));
    expect(session.properties).not.toHaveProperty('ok');
    expect(Object.keys(operationOf('/settings', 'get', SETTINGS_SURFACE).responses['200'].content)).toEqual(['text/html']);
    expect(operationOf('/settings/api/keys', 'post', SETTINGS_SURFACE).requestBody).toBeDefined();
    expect(Object.keys(operationOf('/settings/api/keys', 'post', SETTINGS_SURFACE).responses)).toContain('201');
  });

  it("answers the functions' errors as {code, message, request_id} under their catalog status, and every answer of the web side's gateway and edge in its gateway shape", () => {
    const gatewayAnswers = frontAnswers('web').map((answer) => `${answer.code}@${answer.status}`);
    for (const route of settingsRoutes) {
      const op = operationOfRoute(route);
      const declared = { functions: [] as string[], front: [] as string[] };
      for (const [status, response] of Object.entries(op.responses).filter(([status]) => Number(status) >= 400)) {
        for (const body of bodiesOf(response.content['application/json'].schema)) {
          expect(body, `${route.id} ${status}`).toMatchObject({ required: ['code', 'message', 'request_id'], additionalProperties: false });
          // The gateway's body also carries the envelope (`ok`, `error`): one static body serves the player site too.
          (body.properties.error ? declared.front : declared.functions).push(...(body.properties.code.enum as string[]).map((code) => `${code}@${status}`));
        }
      }
      const expected = errorCodesOf(route, ROUTE_CONTRACTS[route.id]).map((code) => `${code}@${ERROR_CATALOG[code].status}`);
      expect(declared.functions.sort(), route.id).toEqual(expected.sort());
      expect(declared.front.sort(), route.id).toEqual([...gatewayAnswers].sort());
    }
    expect(settingsCodesAt(operationOf('/settings/api/keys', 'get', SETTINGS_SURFACE), 401)).toEqual(['SESSION_REQUIRED']);
    expect(settingsCodesAt(operationOf('/settings/api/session', 'post', SETTINGS_SURFACE), 401)).toEqual(['INVALID_PASSWORD', 'INVALID_TWO_FACTOR']);
    expect(settingsCodesAt(operationOf('/settings/api/session', 'post', SETTINGS_SURFACE), 403)).toContain('CSRF_CHECK_FAILED');
  });

  it('carries Retry-After on 429 and 503, the policy on 429, and no X-RateLimit-Limit or -Remaining', () => {
    for (const route of settingsRoutes) {
      const op = operationOfRoute(route);
      expect(Object.keys(op.responses['429'].headers), route.id).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Policy']));
      if (op.responses['503']) expect(Object.keys(op.responses['503'].headers), route.id).toContain('Retry-After');
      for (const response of Object.values(op.responses)) expect(Object.keys(response.headers)).not.toEqual(expect.arrayContaining(['X-RateLimit-Limit']));
    }
  });

  it('documents Set-Cookie on signing in, signing out, the password change and turning two-factor on only', () => {
    const setters = settingsRoutes.filter((route) => 'Set-Cookie' in operationOfRoute(route).responses[String(ROUTE_CONTRACTS[route.id].status)].headers);
    expect(setters.map((route) => route.id).sort()).toEqual(['settings-password', 'settings-sign-in', 'settings-sign-out', 'settings-two-factor-confirm']);
  });
});
