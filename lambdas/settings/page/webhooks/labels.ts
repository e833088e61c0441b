/**
 * Browser code of the settings page's webhooks cards: the words for the API's values (statuses,
 * why a callback ended, what each failure reason means), typed against the contracts, and a
 * callback's path in the settings API.
 */
import { REASONS } from '../labels';
import type { ResponseOf } from '../settings-api';

export type Webhook = ResponseOf<'webhooks'>['webhooks'][number];
export type Delivery = ResponseOf<'webhook-deliveries'>['deliveries'][number];
export type FailureReason = NonNullable<Delivery['failure_reason']>;

export const WEBHOOK_STATUS: Readonly<Record<Webhook['status'], string>> = { unverified: 'Unverified', active: 'Active', deactivated: 'Deactivated' };

export const WEBHOOK_ENDS: Readonly<Record<string, string>> = {
  ...REASONS,
  deactivated_by_creator: 'deactivated by you',
  deactivated_by_operator: 'deactivated by an operator',
};

export const DELIVERY_STATUS: Readonly<Record<Delivery['status'], string>> = {
  pending: 'Pending',
  attempting: 'Sending',
  retrying: 'Retrying',
  delivered: 'Delivered',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** What each failure reason means: a short label for tables, an explanation for a verification's or a test's outcome. */
export const FAILURES: Readonly<Record<FailureReason, readonly [label: string, explanation: string]>> = {
  CHALLENGE_RESPONSE_INVALID: ['Bad challenge answer', 'The receiver must answer 200 with a small JSON body holding the challenge: {"challenge": "<data.challenge of the request>"}.'],
  CHALLENGE_MISMATCH: ['Wrong challenge', 'The receiver answered with another challenge than the one sent: echo the data.challenge of this very request.'],
  HTTP_3xx: ['Redirect (not followed)', 'The receiver answered with a redirect. Redirects are not followed: register the final address.'],
  HTTP_4xx: ['Refused (HTTP 4xx)', 'The receiver refused the request. Check the path, and that the endpoint accepts signed POST requests.'],
  HTTP_5xx: ['Receiver error (HTTP 5xx)', 'The receiver failed to handle the request (a 5xx or another unexpected status).'],
  UNSAFE_WEBHOOK_DESTINATION: ['Unsafe destination', 'The address resolves to a private, local or reserved network address, which is never called.'],
  CONNECTION_FAILED: ['Connection failed', 'No connection could be made: it was refused or cut, or the TLS certificate was not accepted.'],
  WEBHOOK_UNREACHABLE: ['Unreachable', 'The receiver could not be reached: the name did not resolve, or no answer came within 8 seconds.'],
  INVALID_WEBHOOK_URL: ['Address not allowed', 'The address is not allowed: it must be a complete HTTPS address of a public domain name on port 443.'],
  ACCESS_REVOKED: ['Access revoked', 'Your authority over the organization ended, so the callback was deactivated.'],
};

export const failureLabel = (reason: FailureReason | null | undefined): string => (reason && FAILURES[reason] ? FAILURES[reason][0] : String(reason));

export const httpNote = (status: number | null | undefined): string => (status === null || status === undefined ? '' : ' (HTTP ' + status + ')');

export const webhookPath = (id: string, rest?: string): string => 'webhooks/' + encodeURIComponent(id) + (rest ? '/' + rest : '');
