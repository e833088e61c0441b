/**
 * Every route's contract, assembled from the groups that own them (lambdas/<group>/*-contracts.ts). A function's
 * bundle carries its own group's contracts only (its handler passes them to its pipeline); this table is for what
 * sees the whole service: the OpenAPI documents (scripts/openapi-document.ts) and the tests. A route without a
 * contract, or a contract without a route, does not compile.
 */
import type { RouteContract } from '../shared/http/contract';
import type { RouteId } from './routes';
import { ENTITLEMENT_CONTRACTS } from '../entitlements/entitlement-contracts';
import { IDENTITY_CONTRACTS } from '../identity/identity-contracts';
import { INVITATION_CONTRACTS } from '../invitations/invitation-contracts';
import { PLAYER_CONTRACTS } from '../player/player-contracts';
import { RECORD_CONTRACTS } from '../records/record-contracts';
import { SETTINGS_CONTRACTS } from '../settings/settings-contracts';
import { SIGN_IN_CONTRACTS } from '../sign-in/sign-in-contracts';
import { SYSTEM_CONTRACTS } from '../system/system-contracts';
import { TICKET_CONTRACTS } from '../tickets/ticket-contracts';
import { WEBHOOK_CONTRACTS } from '../webhooks/webhook-contracts';

export const ROUTE_CONTRACTS: Readonly<Record<RouteId, RouteContract>> = {
  ...SYSTEM_CONTRACTS,
  ...IDENTITY_CONTRACTS,
  ...ENTITLEMENT_CONTRACTS,
  ...RECORD_CONTRACTS,
  ...INVITATION_CONTRACTS,
  ...TICKET_CONTRACTS,
  ...PLAYER_CONTRACTS,
  ...SETTINGS_CONTRACTS,
  ...SIGN_IN_CONTRACTS,
  ...WEBHOOK_CONTRACTS,
};
