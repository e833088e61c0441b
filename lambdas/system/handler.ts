/**
 * The `system` function: `GET /health`, and the answer for every path or
 * method no route declares (API Gateway sends those here: 404 NOT_FOUND).
 *
 * The shared steps (http/pipeline.ts) with no authentication, admission or
 * authorization of its own: its one route needs no key, and the partner API's
 * front door (partner-api-pipeline.ts) admits such a route as it is. Composed
 * here rather than through that front door, whose key steps import the
 * admission store and with it the AWS SDK: this function calls no table, and
 * its cold start loads no DynamoDB client (docs/infrastructure.md "Cold start").
 * A route of another function sent here (API Gateway never does) is 404 at
 * routing, key or not.
 */
import { successResponse } from '../shared/http/envelope';
import { answerWith, composeApiHandler, type ApiHandler, type FunctionDefinition, type Middleware } from '../shared/http/pipeline';
import { SYSTEM_OPERATIONS } from './health';
import { SYSTEM_CONTRACTS } from './system-contracts';
import { SYSTEM_ROUTES } from './system-routes';

export const definition = { operations: SYSTEM_OPERATIONS, contracts: SYSTEM_CONTRACTS, routes: SYSTEM_ROUTES };

/** A route that needs no key is admitted as it is, and its call logged (as the partner API's front door does). */
const keyless = (): Middleware => ({
  before: (request) => {
    request.context.pipeline.admitted = true;
  },
});

/** The system function's front door over `definition` (lambdas/service/functions.ts builds it on a given platform). */
export function createSystemHandler(system: FunctionDefinition): ApiHandler {
  return composeApiHandler(system, {
    doors: ['none'],
    steps: [keyless()],
    credentials: () => ({}),
    respond: answerWith(successResponse),
  });
}

export const handler = createSystemHandler(definition);
