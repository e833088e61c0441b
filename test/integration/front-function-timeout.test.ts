/**
 * Lambda's function timeout at the local front: a handler that has not
 * answered when the deadline its context counts down to is reached gets API
 * Gateway's 502 (INTEGRATION_FAILURE's INTERNAL_ERROR envelope, no
 * Retry-After), and getRemainingTimeInMillis() agrees with that deadline.
 * The deadline is the stage config's function timeout unless the front is
 * given a (short) one. No DynamoDB: the handlers here are stand-ins.
 */
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { successResponse } from '../../lambdas/shared/http/envelope';
import type { ApiHandler } from '../../lambdas/shared/http/pipeline';
import { FUNCTION_TIMEOUT_MS, startLocalFront } from '../../local/http-front';
import { resolveStageConfig } from '../../lib/config/stage-config';
import { rawRequest } from '../support/raw-http';

/** GET /v1/health through a front whose fallback/system group is `handler`. */
async function callHealth(handler: ApiHandler, functionTimeoutMs?: number) {
  const front = await startLocalFront({ handlers: { system: handler }, functionTimeoutMs });
  try {
    return await rawRequest(`${front.baseUrl}/health`);
  } finally {
    await front.close();
  }
}

function expectGatewayTimeoutAnswer(response: Awaited<ReturnType<typeof callHealth>>) {
  expect(response.status).toBe(502);
  expect(response.json).toMatchObject({ ok: false, error: { code: 'INTERNAL_ERROR' } });
  expect(response.headers['x-request-id']).toBe(response.json.request_id);
  expect(response.headers['retry-after']).toBeUndefined();
}

describe('the function timeout at the local front', () => {
  it('defaults to the stage config\u2019s function timeout', () => {
    expect(FUNCTION_TIMEOUT_MS).toBe(resolveStageConfig('pr1').lambda.timeoutSeconds * 1000);
  });

  it('answers 502 INTERNAL_ERROR to a handler that never answers, whose remaining time has then run out', async () => {
    let context: Context | undefined;
    let remainingAtStart: number | undefined;
    const never: ApiHandler = (_event, invocationContext) => {
      context = invocationContext;
      remainingAtStart = invocationContext.getRemainingTimeInMillis();
      return new Promise(() => undefined);
    };
    expectGatewayTimeoutAnswer(await callHealth(never, 200));
    expect(remainingAtStart).toBeLessThanOrEqual(200);
    expect(context?.getRemainingTimeInMillis()).toBe(0);
  });

  it('answers 502 to a handler whose answer comes only once its remaining time is 0 (it held the thread past the deadline)', async () => {
    const late: ApiHandler = async (event, context) => {
      while (context.getRemainingTimeInMillis() > 0) {
        // Busy until the deadline the context reports, then answer at once.
      }
      return successResponse(event.requestContext.requestId, { late: true });
    };
    expectGatewayTimeoutAnswer(await callHealth(late, 30));
  });

  it('passes an answer given before the deadline through, with the stage config\u2019s deadline by default', async () => {
    const prompt: ApiHandler = async (event, context) => successResponse(event.requestContext.requestId, { remaining: context.getRemainingTimeInMillis() });
    const response = await callHealth(prompt);
    expect(response.status).toBe(200);
    expect((response.json.data as { remaining: number }).remaining).toBeLessThanOrEqual(FUNCTION_TIMEOUT_MS);
  });
});
