/**
 * The execution roles that resources of the stateful stack name in their own policies: the
 * webhook secrets key's policy (who may encrypt and decrypt) and each service secret's resource
 * policy (who may read its value). Those resources are created before the stateless stack and
 * cannot reference its roles, so these roles get deterministic names, `partner-api-<stage>-<name>-<Region>`,
 * and the policies name them by ARN inside a condition on `aws:PrincipalArn` (a condition, unlike
 * a principal, may name a role that does not exist yet: the stateful stack deploys first).
 *
 * One declaration, two readers: the stateless stack names the roles with roleName() and grants
 * them in IAM; the stateful stack builds its resource policies from the same lists (who may use the
 * secrets key for what: SECRETS_KEY_USERS, secrets-key-users.ts, which the local stack enforces too). The
 * infrastructure tests check that the roles the stateless template grants KMS or a secret are
 * exactly the roles the stateful template's policies let in (test/infra/resource-policies.test.ts).
 */
import { Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ENDPOINT_GROUPS } from '../../lambdas/shared/http/routes';
import { GROUP_SECRET_ACCESS } from '../../lambdas/service/data-access';
import type { SecretId } from '../../lambdas/shared/secret-names';
import { SECRETS_KEY_USERS, type ServiceRole } from './secrets-key-users';

/** The key users' table lives in a module without CDK (the local stack reads it too). */
export { SECRETS_KEY_USERS, keyUsesOf, type KeyUse, type KeyUsers, type ServiceRole } from './secrets-key-users';

/**
 * The role's name. IAM names are unique in the **account**, not the Region (IAM is global), so the
 * Region is part of it: the same stage deployed in two Regions (a second Region, a rehearsal) must not
 * collide. At most 64 characters: `partner-api-` 12 + a stage ≤ 20 + a role part ≤ 12 + 2 hyphens
 * leaves 18 for the Region (the longest today, `ap-southeast-5`, has 14); the names rule checks it on
 * every synthesis (lib/compliance/deploy-readiness/names-rules.ts, account-wide names).
 */
export function serviceRoleName(stage: string, role: ServiceRole): string {
  return `partner-api-${stage}-${ROLE_NAME_PARTS[role] ?? role}-${Aws.REGION}`;
}

/** Shorter name parts where the role's own name is long. */
const ROLE_NAME_PARTS: Partial<Record<ServiceRole, string>> = { 'webhook-delivery': 'delivery' };

/** The IAM statements that let a role use the key as SECRETS_KEY_USERS says (none for a role it does not list). */
export function keyUseStatements(role: ServiceRole, keyArn: string): iam.PolicyStatement[] {
  return (SECRETS_KEY_USERS[role] ?? []).map(
    (use) => new iam.PolicyStatement({ actions: [...use.actions], resources: [keyArn], conditions: { StringEquals: { 'kms:EncryptionContext:purpose': use.purpose } } }),
  );
}

/** The roles that read a secret's value: the API groups whose GROUP_SECRET_ACCESS lists it. */
export function secretReaders(secret: SecretId): ServiceRole[] {
  return ENDPOINT_GROUPS.filter((group) => GROUP_SECRET_ACCESS[group].includes(secret));
}
