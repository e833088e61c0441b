/**
 * The OpenAPI document: generated from the route table and the contracts,
 * committed, accepted by an independent validator, and complete (every
 * route, every error code its declaration implies, the envelopes and the
 * rate-limit headers).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { ROUTE_CONTRACTS } from '../../../lambdas/shared/http/route-contracts';
import { ROUTES } from '../../../lambdas/shared/http/routes';
import { buildOpenApiDocument, CONTRACT_VERSION, OPENAPI_FILE, renderOpenApiDocument } from '../../../scripts/openapi-document';

const committed = readFileSync(join(import.meta.dirname, '..', '..', '..', OPENAPI_FILE), 'utf8');
type Operation = { operationId: string; security: unknown[]; responses: Record<string, { content: { 'application/json': { schema: Record<string, any> } }; headers: Record<string, unknown> }> };
const operationOf = (path: string, method: string) => (buildOpenApiDocument().paths as Record<string, Record<string, Operation>>)[path]?.[method];
const codesAt = (op: Operation, status: number) => op.responses[String(status)]?.content['application/json'].schema.properties.error.properties.code.enum as string[];

describe('the OpenAPI document', () => {
  it('is committed as generated: run `npm run openapi` after changing a route or a contract', () => {
    expect(committed).toBe(renderOpenApiDocument());
  });

  it('is valid OpenAPI 3.1 for an independent validator (swagger-parser)', async () => {
    const api = (await SwaggerParser.validate(JSON.parse(committed))) as { openapi: string; info: { version: string } };
    expect(api.openapi).toBe('3.1.0');
    expect(api.info.version).toBe(CONTRACT_VERSION);
  });

  it('declares every route of the table, and every route has a contract whose query matches the route', () => {
    for (const route of ROUTES) {
      const contract = ROUTE_CONTRACTS[route.id];
      expect(contract, route.id).toBeDefined();
      expect(Object.keys(contract.query?.shape ?? {}).sort(), route.id).toEqual([...route.query].sort());
      // The player site is not part of the partner API: its routes have contracts but stay out of the document.
      if (route.auth === 'player') expect(operationOf(route.path, route.method.toLowerCase()), route.id).toBeUndefined();
      else expect(operationOf(route.path, route.method.toLowerCase()).operationId).toBe(route.id);
    }
  });

  it('lists the codes each operation can answer, by status, in the error envelope', () => {
    const me = operationOf('/me', 'get');
    const health = operationOf('/health', 'get');
    expect(codesAt(me, 401)).toEqual(['INVALID_API_KEY']);
    expect(codesAt(me, 503)).toEqual(['RATE_LIMIT_UNAVAILABLE']);
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
});
