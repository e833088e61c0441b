/**
 * Authorization of an admitted request: the route's scope and organization
 * binding. It runs after admission on purpose: a request refused here was
 * admitted, so it counts against the quotas and is call-logged, as the spec
 * says of failed business requests ("both count once admitted").
 */
import { ApiError } from '../errors';
import type { Principal } from './principal';
import type { Scope } from './scopes';

export interface AuthorizedRoute {
  readonly scope?: Scope;
  /** The route acts on the `{partner_id}` of its path. */
  readonly partnerBound?: boolean;
}

/** Throws 403 PARTNER_SCOPE_MISMATCH or INSUFFICIENT_SCOPE; binding first, as the spec lists it. */
export function authorizeRoute(principal: Principal, route: AuthorizedRoute, pathPartnerId: string | undefined): void {
  // Personal keys have no organization: any organization route is a mismatch for them.
  if (route.partnerBound && principal.partnerId !== pathPartnerId) throw new ApiError('PARTNER_SCOPE_MISMATCH');
  if (route.scope && !principal.scopes.includes(route.scope)) throw new ApiError('INSUFFICIENT_SCOPE');
}
