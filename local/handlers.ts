/** The deployed handlers, by endpoint group: the local front calls these very modules. */
import type { ApiHandler } from '../lambdas/shared/http/pipeline';
import type { EndpointGroup } from '../lambdas/shared/http/routes';
import { handler as entitlements } from '../lambdas/entitlements/handler';
import { handler as identity } from '../lambdas/identity/handler';
import { handler as invitations } from '../lambdas/invitations/handler';
import { handler as player } from '../lambdas/player/handler';
import { handler as records } from '../lambdas/records/handler';
import { handler as settings } from '../lambdas/settings/handler';
import { handler as signIn } from '../lambdas/sign-in/handler';
import { handler as system } from '../lambdas/system/handler';
import { handler as webhooks } from '../lambdas/webhooks/handler';
import { handler as tickets } from '../lambdas/tickets/handler';

export const HANDLERS: Readonly<Record<EndpointGroup, ApiHandler>> = { system, identity, records, entitlements, invitations, tickets, player, settings, 'sign-in': signIn, webhooks };
