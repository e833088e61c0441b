/**
 * The contract of every route of the route table (routes.ts), as zod
 * schemas: what each operation takes and what its success `data` is. The
 * OpenAPI document (docs/openapi.json, `npm run openapi`) is generated from
 * this table; a test fails when a route has no contract, when a contract's
 * query parameters differ from its route's, or when the document is stale.
 */
import * as z from 'zod/mini';
import { ORGANIZATION_SCOPES } from '../identity/scopes';
import type { RouteContract } from './contract';
import type { RouteId } from './routes';

const isoTime = () => z.iso.datetime({ offset: true });

/** Name a schema (a component of the OpenAPI document) or describe a field. */
function named<T extends z.ZodMiniType>(id: string, schema: T): T {
  z.globalRegistry.add(schema, { id });
  return schema;
}
function described<T extends z.ZodMiniType>(description: string, schema: T): T {
  z.globalRegistry.add(schema, { description });
  return schema;
}

/** Data of GET /health. */
export const HealthSchema = named(
  'Health',
  z.object({
    status: z.literal('ok'),
    version: z.literal('v1'),
  }),
);

/** Data of GET /me. */
export const IdentitySchema = named(
  'Identity',
  z.object({
    key_id: described("The key's identifier", z.string()),
    account_id: described('The creating account', z.string()),
    partner_id: z.optional(described('The bound organization; present for organization keys', z.string())),
    scopes: described('Granted scopes', z.array(z.enum(ORGANIZATION_SCOPES))),
    expires_at: described('null: the key never expires automatically', z.nullable(isoTime())),
  }),
);

export const ROUTE_CONTRACTS: Readonly<Record<RouteId, RouteContract>> = {
  health: {
    summary: 'Health',
    description: 'Liveness of the API. Needs no key; edge protection applies to it too.',
    status: 200,
    data: HealthSchema,
  },
  me: {
    summary: 'Inspect the presented key',
    description: 'What the presented key is. Needs no business scope.',
    status: 200,
    data: IdentitySchema,
  },
};
