/**
 * Who may use the stage's secrets key (alias `…-webhook-secrets`) for what: one table, read by the
 * stateful stack's key policy, each role's IAM grant (service-roles.ts keyUseStatements), the
 * stateless stack's SEALING_KEY_ARN (every API function with a use here gets it) and the local stack,
 * whose sealer refuses what a function's role lacks (local/sealing.ts). No CDK import, so the local
 * stack reads it without loading aws-cdk-lib (service-roles.ts re-exports it for lib/).
 */
import { TWO_FACTOR_PURPOSE } from '../../lambdas/back-office/two-factor-seeds';
import type { EndpointGroup } from '../../lambdas/shared/http/routes';
import { WEBHOOK_SECRET_PURPOSE } from '../../lambdas/webhooks/webhook-env';

/** A named role: an API group's function, or one of the webhook pipeline's. */
export type ServiceRole = EndpointGroup | 'webhook-delivery';

/** A use of the stage's secrets key: the actions, for ciphertexts of one purpose (their encryption context's `purpose`). */
export interface KeyUse {
  readonly purpose: string;
  readonly actions: readonly ('kms:Encrypt' | 'kms:Decrypt')[];
}

/** Key uses by role: a role it does not list may not use the key at all. */
export type KeyUsers = Readonly<Partial<Record<ServiceRole, readonly KeyUse[]>>>;

/** What each role may do with the secrets key, by purpose (a seal is Encrypt, an open Decrypt). */
export const SECRETS_KEY_USERS: KeyUsers = {
  // Web settings' webhooks function seals a callback's signing secret when creating it and opens it to send a test;
  // its routes' re-check (a callback's creation with two-factor on) opens the owner's TOTP seed to check the code,
  // and never seals one (enrolment is the settings function's).
  webhooks: [
    { purpose: WEBHOOK_SECRET_PURPOSE, actions: ['kms:Decrypt', 'kms:Encrypt'] },
    { purpose: TWO_FACTOR_PURPOSE, actions: ['kms:Decrypt'] },
  ],
  // The delivery worker opens it to sign each attempt.
  'webhook-delivery': [{ purpose: WEBHOOK_SECRET_PURPOSE, actions: ['kms:Decrypt'] }],
  // Web settings seal a TOTP seed at enrolment and open it to check a code (lambdas/back-office/two-factor-seeds.ts).
  settings: [{ purpose: TWO_FACTOR_PURPOSE, actions: ['kms:Decrypt', 'kms:Encrypt'] }],
  // Signing in (its own function) opens the TOTP seed of an account with two-factor on to check the code; it never seals one.
  'sign-in': [{ purpose: TWO_FACTOR_PURPOSE, actions: ['kms:Decrypt'] }],
};

/** The uses `users` gives a role (none for a name it does not list: a function that is no ServiceRole). */
export const keyUsesOf = (role: string, users: KeyUsers = SECRETS_KEY_USERS): readonly KeyUse[] => users[role as ServiceRole] ?? [];
