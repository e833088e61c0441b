/**
 * Every action of an account's audit trail (lambdas/back-office/audit.ts says what writes each). The web
 * settings' changes, its sign-ins, the webhook actions, and the operator's changes to the account and to
 * its organizations. A leaf module: the back office writes these, the settings API's contract lists them.
 */
export const AUDIT_ACTIONS = [
  'key.created',
  'key.revoked',
  'password.changed',
  'password.reset',
  'two_factor.enrolled',
  'two_factor.enabled',
  'two_factor.disabled',
  'two_factor.reset',
  'webhook.created',
  'webhook.verified',
  'webhook.deactivated',
  'webhook.delivery_requeued',
  'webhook.event_redelivered',
  'webhook.tested',
  'webhook.resent',
  'sign_in.succeeded',
  'sign_in.refused_attempts',
  'sign_in.two_factor_failed',
  'reauth.failed',
  'session.ended',
  'sessions.ended',
  'account.deactivated',
  'account.reactivated',
  'membership.set',
  'membership.removed',
  'organization.archived',
  'organization.restored',
] as const;
