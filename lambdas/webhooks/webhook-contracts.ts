/**
 * The contracts of the webhook callbacks' routes in web settings (each declared once here, rules and contract: *-routes.ts is generated from them;
 * group `webhooks`; docs/webhooks.md): same session, CSRF checks and error
 * shape as the rest of settings, rendered in docs/settings-openapi.json.
 */
import * as z from 'zod/mini';
import { named, withErrorCode, type GroupContracts } from '../shared/http/contract';
import type { WEBHOOK_ROUTES } from './webhook-routes';

const text = (max: number) => z.string().check(z.maxLength(max));

const FAILURE_REASONS = [
  'CHALLENGE_RESPONSE_INVALID',
  'CHALLENGE_MISMATCH',
  'HTTP_3xx',
  'HTTP_4xx',
  'HTTP_5xx',
  'INVALID_WEBHOOK_URL',
  'UNSAFE_WEBHOOK_DESTINATION',
  'CONNECTION_FAILED',
  'WEBHOOK_UNREACHABLE',
  'ACCESS_REVOKED',
] as const;

export const WebhookSchema = named('Webhook', z.strictObject({
  webhook_id: z.string(),
  /** The organization the callback is bound to. */
  partner_id: z.string(),
  url: z.string(),
  /** `unverified` until a verification succeeds; `deactivated` for good (by you, or when your authority over the organization ended). */
  status: z.enum(['unverified', 'active', 'deactivated']),
  created_at: z.string(),
  /** From then on, new business events are delivered (no backlog). */
  activated_at: z.nullable(z.string()),
  deactivated_at: z.nullable(z.string()),
  deactivation_reason: z.nullable(z.string()),
  last_verification: z.nullable(
    named(
      'Verification',
      z.strictObject({ at: z.string(), result: z.enum(['verified', 'failed']), failure_reason: z.optional(z.enum(FAILURE_REASONS)), http_status: z.optional(z.number()) }),
    ),
  ),
}));

export const DeliverySchema = named('Delivery', z.strictObject({
  delivery_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(['pending', 'attempting', 'retrying', 'delivered', 'failed', 'cancelled']),
  /** Attempts of the current cycle (up to 8; a manual resend starts a new cycle). */
  attempts: z.number(),
  last_http_status: z.nullable(z.number()),
  failure_reason: z.nullable(z.enum(FAILURE_REASONS)),
  created_at: z.string(),
  last_attempt_at: z.nullable(z.string()),
  next_attempt_at: z.nullable(z.string()),
  delivered_at: z.nullable(z.string()),
  resends: z.number(),
}));

const AttemptReportSchema = named('AttemptReport', z.strictObject({
  result: z.enum(['verified', 'delivered', 'failed']),
  failure_reason: z.nullable(z.enum(FAILURE_REASONS)),
  http_status: z.nullable(z.number()),
}));

const webhookId = z.object({ webhook_id: withErrorCode(z.string().check(z.regex(/^wh_[0-9a-f]{20}$/)), 'WEBHOOK_NOT_FOUND') });
const COMMON = ['SESSION_REQUIRED', 'RATE_LIMIT_UNAVAILABLE', 'API_KEY_NOT_ACCEPTED', 'DUPLICATE_CREDENTIAL_COOKIE'] as const;

export const WEBHOOK_CONTRACTS = {
  webhooks: {
    method: 'GET', path: '/settings/api/webhooks', auth: 'session', category: 'settings-view',
    summary: 'Your webhook callbacks (deactivated ones for 30 days), newest first; never a secret',
    status: 200,
    data: z.strictObject({ webhooks: z.array(WebhookSchema) }),
    errors: [...COMMON],
  },
  'webhook-create': {
    method: 'POST', path: '/settings/api/webhooks', auth: 'session', category: 'settings-webhook-create',
    summary: 'Create a webhook callback for an organization you manage: its signing secret is in this answer only',
    description:
      'Needs your password and, when two-factor is on, a current code. The address: a complete HTTPS URL of a public domain name on port 443, without user, password or fragment (422 INVALID_WEBHOOK_URL). The callback starts `unverified`: verify it to receive events. At most 10 non-deactivated callbacks per account and per organization (409 WEBHOOK_LIMIT_OR_ACCESS_CHANGED). ' +
      'Send an `Idempotency-Key` header (16–128 of A–Z a–z 0–9 _ -; the settings page sends one per submission) and send it again when you retry after an error: a retry with the same key and the same organization and address answers 200 with the callback the first attempt created, `replayed: true` and `secret: null` (the secret is shown once: if you never saw it, deactivate the callback and add a new one). A replay is answered before the password and code are checked, so it needs no second two-factor code. The same Idempotency-Key with another request is 409 IDEMPOTENCY_CONFLICT; a malformed one 400 IDEMPOTENCY_KEY_REQUIRED. Without the header a retry may create a second callback.',
    body: z.strictObject({
      partner_id: withErrorCode(z.string().check(z.minLength(1), z.maxLength(128)), 'INVALID_FIELD'),
      url: withErrorCode(text(2048), 'INVALID_WEBHOOK_URL'),
      password: withErrorCode(text(1024), 'INVALID_FIELD'),
      two_factor_code: withErrorCode(z.optional(text(16)), 'INVALID_FIELD'),
    }),
    status: 201,
    replayStatus: 200,
    data: z.strictObject({
      webhook: WebhookSchema,
      /** `whsec_…`: shown this once; it signs every request to the callback (X-Service-Signature). Null on a replay. */
      secret: z.nullable(z.string()),
      /** True: an earlier attempt with this Idempotency-Key created the callback (200), and its secret is not shown again. */
      replayed: z.boolean(),
    }),
    errors: [
      ...COMMON,
      'CSRF_CHECK_FAILED',
      'IDEMPOTENCY_KEY_REQUIRED',
      'IDEMPOTENCY_CONFLICT',
      'INVALID_FIELD',
      'INVALID_WEBHOOK_URL',
      'INVALID_PASSWORD',
      'INVALID_TWO_FACTOR',
      'ACCOUNT_INACTIVE',
      'PARTNER_MANAGER_REQUIRED',
      'PARTNER_INACTIVE',
      'WEBHOOK_LIMIT_OR_ACCESS_CHANGED',
      'SETTINGS_CONFLICT',
      'PASSWORD_CHECK_BUSY',
    ],
  },
  'webhook-verify': {
    method: 'POST', path: '/settings/api/webhooks/{webhook_id}/verify', auth: 'session', category: 'settings-webhook-check',
    summary: 'Send the verification event: a 200 echoing the challenge makes the callback active',
    description:
      'The answer reports the outcome: `verified`, or `failed` with the reason (CHALLENGE_RESPONSE_INVALID, CHALLENGE_MISMATCH, HTTP_3xx/4xx/5xx, UNSAFE_WEBHOOK_DESTINATION, CONNECTION_FAILED, WEBHOOK_UNREACHABLE, INVALID_WEBHOOK_URL). Verifying an active callback checks it again without changing it.',
    pathParameters: webhookId,
    status: 200,
    data: z.strictObject({ webhook: WebhookSchema, verification: AttemptReportSchema }),
    errors: [...COMMON, 'CSRF_CHECK_FAILED', 'WEBHOOK_NOT_FOUND', 'WEBHOOK_INACTIVE'],
  },
  'webhook-test': {
    method: 'POST', path: '/settings/api/webhooks/{webhook_id}/test', auth: 'session', category: 'settings-webhook-check',
    summary: 'Send a webhook.test event to an active callback (not in the delivery list)',
    pathParameters: webhookId,
    status: 200,
    data: z.strictObject({ webhook: WebhookSchema, test: AttemptReportSchema }),
    errors: [...COMMON, 'CSRF_CHECK_FAILED', 'WEBHOOK_NOT_FOUND', 'WEBHOOK_INACTIVE', 'WEBHOOK_NOT_VERIFIED'],
  },
  'webhook-deactivate': {
    method: 'POST', path: '/settings/api/webhooks/{webhook_id}/deactivate', auth: 'session', category: 'settings-revoke',
    summary: 'Deactivate a callback for good: its undelivered deliveries are cancelled',
    description: 'Deactivating a deactivated callback answers it as it is.',
    pathParameters: webhookId,
    status: 200,
    data: z.strictObject({ webhook: WebhookSchema, cancelled_deliveries: z.number() }),
    errors: [...COMMON, 'CSRF_CHECK_FAILED', 'WEBHOOK_NOT_FOUND'],
  },
  'webhook-deliveries': {
    method: 'GET', path: '/settings/api/webhooks/{webhook_id}/deliveries', auth: 'session', category: 'settings-view',
    summary: "The callback's latest 50 business deliveries, newest first (kept 30 days)",
    pathParameters: webhookId,
    status: 200,
    data: z.strictObject({ webhook: WebhookSchema, deliveries: z.array(DeliverySchema) }),
    errors: [...COMMON, 'WEBHOOK_NOT_FOUND'],
  },
  'webhook-resend': {
    method: 'POST', path: '/settings/api/webhooks/{webhook_id}/deliveries/{delivery_id}/resend', auth: 'session', category: 'settings-webhook-resend',
    summary: 'Resend a delivered, finally failed or cancelled delivery: a new cycle of up to 8 attempts with the same event id and body',
    pathParameters: z.object({
      webhook_id: webhookId.shape.webhook_id,
      // webhook-items.ts DELIVERY_ID_PATTERN (the first release's ids, and the per-callback ones); a unit test keeps them equal.
      delivery_id: withErrorCode(z.string().check(z.regex(/^dlv_[0-9a-z]{9}_[0-9a-f]{16}(?:_[0-9a-f]{20})?$/)), 'DELIVERY_NOT_FOUND'),
    }),
    status: 200,
    data: z.strictObject({ delivery: DeliverySchema }),
    errors: [...COMMON, 'CSRF_CHECK_FAILED', 'WEBHOOK_NOT_FOUND', 'DELIVERY_NOT_FOUND', 'DELIVERY_IN_PROGRESS', 'WEBHOOK_INACTIVE', 'WEBHOOK_NOT_VERIFIED'],
  },
} as const satisfies GroupContracts<typeof WEBHOOK_ROUTES>;
