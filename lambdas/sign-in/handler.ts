/**
 * The `sign-in` function: signing in to web settings (`POST /settings/api/session`), and nothing else. Each attempt
 * costs a password hash (scrypt, lambdas/back-office/passwords.ts), so an unauthenticated flood of it is the most
 * expensive traffic the web side takes; in a function of its own, that flood can exhaust only this function's
 * reserved concurrency (StageConfig.reservedConcurrency['sign-in']), never the settings function's, which keeps
 * serving the page, sign-out and every signed-in route. The stage checks that the method throttle in front of it
 * cannot saturate that reservation (lib/config/stage-config.ts), so a flood is refused with 429 at API Gateway.
 *
 * Same front door as the rest of web settings (settings-pipeline.ts: no API key, the cross-site checks, the
 * web-settings error shape); the operation is sign-in-operation.ts, counted by source IP and
 * e-mail address once its body is parsed (settings-admission.ts). Its route takes no session (auth `web`): it looks
 * none up.
 */
import { createSettingsHandler, type SettingsFunction } from '../settings/settings-pipeline';
import { lazyContracts } from '../shared/http/contract-loading';
import { lazyChunk } from '../shared/http/lazy-chunk';
import { SIGN_IN_ROUTES } from './sign-in-routes';

/** Loaded beside the first round trip, off the cold start (contract-loading.ts, lazy-chunk.ts). */
const CONTRACTS = lazyContracts(() => import('./sign-in-contracts').then((module) => module.SIGN_IN_CONTRACTS));
const CODE = lazyChunk(() => import('./sign-in-operation'));

export const operations = CODE.routeTable(SIGN_IN_ROUTES, (m) => m.SIGN_IN_OPERATIONS);

export const definition: SettingsFunction = { operations, contracts: CONTRACTS, routes: SIGN_IN_ROUTES, chunks: [CODE] };

export const handler = createSettingsHandler(definition);
