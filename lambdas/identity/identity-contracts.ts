/**
 * The contract of the identity group's route (each declared once here, rules and contract: *-routes.ts is generated from them; group `identity`): GET /me.
 */
import * as z from 'zod/mini';
import { ORGANIZATION_SCOPES } from '../shared/identity/scopes';
import { described, isoTime, named, type GroupContracts } from '../shared/http/contract';
import type { IDENTITY_ROUTES } from './identity-routes';

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

export const IDENTITY_CONTRACTS = {
  me: {
    method: 'GET', path: '/me', auth: 'key',
    summary: 'Inspect the presented key',
    clientMethod: 'me',
    description: 'What the presented key is. Needs no business scope.',
    status: 200,
    data: IdentitySchema,
  },
} as const satisfies GroupContracts<typeof IDENTITY_ROUTES>;
