/**
 * What a call of the client answers: the success envelope's `data` with what the answer said beside it, or a
 * PartnerApiError (a failed answer, a network error, a deadline). The generated methods (methods.generated.ts) and
 * client.ts's own answer through it.
 */
import { errorOf, PartnerApiError, rateLimitOf, type RateLimitInfo } from './errors.js';

/** A success with what the answer said beside its data. */
export interface Answer<T> {
  readonly data: T;
  readonly requestId: string | undefined;
  readonly rateLimit: RateLimitInfo;
}

/** openapi-fetch's result: the parsed success body (the envelope) or the error body, and the response. */
type FetchResult<T> = { data?: { data: T; request_id?: string }; error?: unknown; response: Response };

export async function answer<T>(call: Promise<FetchResult<T>>): Promise<Answer<T>> {
  const { data, error, response } = await call.catch((error: unknown) => {
    throw new PartnerApiError(error instanceof Error && error.name === 'TimeoutError' ? 'DEADLINE_EXCEEDED' : 'NETWORK_ERROR', String((error as Error)?.message ?? error), 0, undefined, {}, undefined, {
      cause: error,
    });
  });
  if (!response.ok || !data) throw errorOf(response, error);
  return { data: data.data, requestId: data.request_id ?? response.headers.get('x-request-id') ?? undefined, rateLimit: rateLimitOf(response.headers) };
}
