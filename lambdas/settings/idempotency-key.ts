/**
 * The Idempotency-Key of web settings' creations (`POST keys`, `POST webhooks`; docs/web-settings.md, "Retrying a
 * creation"): the partner API's header and pattern (invitation creation), optional here. The settings page sends one
 * per submission of its form and the same one again when the owner retries after an error; a request without one is
 * created as before, with nothing to recognize a retry by.
 */
import { IDEMPOTENCY_KEY_PATTERN } from '../invitations/invitation-model';
import { ApiError } from '../shared/errors';
import type { ApiEvent } from '../shared/http/api-event';

/** The request's Idempotency-Key; undefined without one; a malformed or repeated one is 400 IDEMPOTENCY_KEY_REQUIRED (never silently ignored). */
export function optionalIdempotencyKey(headers: ApiEvent['headers']): string | undefined {
  const values = headers.get('idempotency-key');
  if (values === undefined || values.length === 0) return undefined;
  if (values.length === 1 && IDEMPOTENCY_KEY_PATTERN.test(values[0])) return values[0];
  throw new ApiError('IDEMPOTENCY_KEY_REQUIRED', 'The Idempotency-Key header must be one value of 16–128 letters, digits, "_" or "-".');
}

/** The key for a read started beside the admission: the same rule, but a malformed key reads nothing (the operation answers 400). */
export function prefetchIdempotencyKey(headers: ApiEvent['headers']): string | undefined {
  try {
    return optionalIdempotencyKey(headers);
  } catch {
    return undefined;
  }
}
