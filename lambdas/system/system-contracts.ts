/**
 * The contract of the system group's route (each declared once here, rules and contract: *-routes.ts is generated from them; group `system`): GET /health.
 */
import * as z from 'zod/mini';
import { named, type GroupContracts } from '../shared/http/contract';
import type { SYSTEM_ROUTES } from './system-routes';

/** Data of GET /health. */
export const HealthSchema = named(
  'Health',
  z.object({
    status: z.literal('ok'),
    version: z.literal('v1'),
  }),
);

export const SYSTEM_CONTRACTS = {
  health: {
    method: 'GET', path: '/health', auth: 'none',
    summary: 'Health',
    clientMethod: 'health',
    description: 'Liveness of the API. Needs no key; edge protection applies to it too.',
    status: 200,
    data: HealthSchema,
  },
} as const satisfies GroupContracts<typeof SYSTEM_ROUTES>;
