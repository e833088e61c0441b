/**
 * The service's route table, assembled from the groups that declare their routes (`lambdas/<group>/*-routes.ts`):
 * for what sees the whole service (the stack's API Gateway resources, WAF, the local HTTP front, the OpenAPI
 * documents, docs and tests). A function's bundle carries its own group's routes only.
 */
import { Router } from '../shared/http/routes';
import { ENTITLEMENT_ROUTES } from '../entitlements/entitlement-routes';
import { IDENTITY_ROUTES } from '../identity/identity-routes';
import { INVITATION_ROUTES } from '../invitations/invitation-routes';
import { PLAYER_ROUTES } from '../player/player-routes';
import { RECORD_ROUTES } from '../records/record-routes';
import { SETTINGS_ROUTES } from '../settings/settings-routes';
import { SIGN_IN_ROUTES } from '../sign-in/sign-in-routes';
import { SYSTEM_ROUTES } from '../system/system-routes';
import { TICKET_ROUTES } from '../tickets/ticket-routes';
import { WEBHOOK_ROUTES } from '../webhooks/webhook-routes';

export const ROUTES = [
  ...SYSTEM_ROUTES,
  ...IDENTITY_ROUTES,
  ...ENTITLEMENT_ROUTES,
  ...RECORD_ROUTES,
  ...INVITATION_ROUTES,
  ...TICKET_ROUTES,
  ...PLAYER_ROUTES,
  ...SIGN_IN_ROUTES,
  ...SETTINGS_ROUTES,
  ...WEBHOOK_ROUTES,
] as const;

export type RouteId = (typeof ROUTES)[number]['id'];

/** A router over the whole service's table (the local front's, the tests'). */
export const defaultRouter = new Router(ROUTES);
