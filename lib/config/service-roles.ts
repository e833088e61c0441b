/**
 * The execution roles that resources of the stateful stack name in their own policies: the
 * webhook secrets key's policy (who may encrypt and decrypt) and each service secret's resource
 * policy (who may read its value). Those resources are created before the stateless stack and
 * cannot reference its roles, so these roles get deterministic names, `partner-api-<stage>-<name>`,
 * and the policies name them by ARN inside a condition on `aws:PrincipalArn` (a condition, unlike
 * a principal, may name a role that does not exist yet: the stateful stack deploys first).
 *
 * One declaration, two readers: the stateless stack names the roles with roleName() and grants
 * them in IAM; the stateful stack builds its resource policies from the same lists. The
 * infrastructure tests check that the roles the stateless template grants KMS or a secret are
 * exactly the roles the stateful template's policies let in (test/infra/resource-policies.test.ts).
 */
import { GROUP_SECRET_ACCESS, ENDPOINT_GROUPS, type EndpointGroup } from '../../lambdas/shared/http/routes';
import type { SecretId } from '../../lambdas/shared/secret-names';

/** A named role: an API group's function, or one of the webhook pipeline's. */
export type ServiceRole = EndpointGroup | 'webhook-delivery';

/** IAM role names: at most 64 characters; a stage is at most 20, so `partner-api-<stage>-` leaves 31. */
export function serviceRoleName(stage: string, role: ServiceRole): string {
  return `partner-api-${stage}-${role}`;
}

/** What each role may do with the webhook secrets key (lib/constructs/webhook-delivery.ts grants the same in IAM). */
export const WEBHOOK_SECRETS_KEY_USERS: Readonly<Partial<Record<ServiceRole, readonly ('kms:Encrypt' | 'kms:Decrypt')[]>>> = {
  // Web settings seal a callback's signing secret when creating it and open it to send a test.
  webhooks: ['kms:Decrypt', 'kms:Encrypt'],
  // The delivery worker opens it to sign each attempt.
  'webhook-delivery': ['kms:Decrypt'],
};

/** The roles that read a secret's value: the API groups whose GROUP_SECRET_ACCESS lists it. */
export function secretReaders(secret: SecretId): ServiceRole[] {
  return ENDPOINT_GROUPS.filter((group) => GROUP_SECRET_ACCESS[group].includes(secret));
}
