/**
 * The environment the stack gives the webhook functions (lib/constructs/webhook-delivery.ts):
 * where the delivery queue and the retry state machine are, which KMS key seals callback
 * secrets, and which host names are the service's own (never a callback's). The local stack
 * sets none of them: it hands its in-process counterparts to the platform instead
 * (LocalSwitches.webhooks), which no deployed function can have.
 */
export const WEBHOOK_ENV = {
  queueUrl: 'WEBHOOK_QUEUE_URL',
  retryStateMachineArn: 'WEBHOOK_RETRY_STATE_MACHINE_ARN',
  secretKeyArn: 'WEBHOOK_SECRET_KEY_ARN',
  /** Comma-separated host names: the service's own API hosts and custom domains. */
  forbiddenHosts: 'WEBHOOK_FORBIDDEN_HOSTS',
} as const;

/**
 * The `purpose` of the encryption context every sealed callback secret carries (webhook-runtime.ts
 * `sealContextOf`): the stack's KMS permissions hold only under it (lib/constructs/webhook-delivery.ts).
 */
export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';
