/**
 * The stateful stack's resource policies against the stateless stack's grants: the webhook secrets
 * key keeps the account's administration but lets only the roles that seal and open callback
 * secrets use it, under their encryption context; each service secret denies reading its value to
 * every principal but its functions' roles. Both lists are read off the synthesized templates on
 * both sides, so a new grant in IAM without the matching policy change (which would fail in AWS
 * only: nothing local enforces a key or secret policy) fails here.
 */
import { describe, expect, it } from 'vitest';
import { SECRET_IDS } from '../../lambdas/shared/secret-names';
import { KEY_USE_ACTIONS } from '../../lib/stateful-stack';
import { resources, ssmParameterRef, stage, stageReferenceNames } from './support';

type Statement = { Sid?: string; Effect: string; Action?: string | string[]; NotAction?: string | string[]; Principal?: unknown; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };

const STAGES = ['dev', 'prod'] as const;
/** How a role name's Region reads once rendered (IAM names are account-wide: lib/config/service-roles.ts). */
const REGION = '${AWS::Region}';

/** A template string value as text: Fn::Join joined, pseudo parameters as `${AWS::…}` (the same on both sides). */
function rendered(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map(rendered).join(join[0]);
  const ref = (value as { Ref?: string }).Ref;
  if (ref) return `\${${ref}}`;
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

/** `partner-api-<stage>-<name>-${AWS::Region}` from a role ARN in a condition. */
function roleNameOf(arn: unknown): string {
  const text = rendered(arn);
  const name = /:role\/(partner-api-.*)$/.exec(text)?.[1];
  expect(name, text).toBeDefined();
  return name as string;
}

/** Each role of the stateless template by name, with the statements of its policies. */
function namedRoleStatements(name: string): Map<string, Statement[]> {
  const { statelessTemplate } = stage(name);
  const roles = resources(statelessTemplate, 'AWS::IAM::Role');
  const policies = Object.values(resources(statelessTemplate, 'AWS::IAM::Policy'));
  const byName = new Map<string, Statement[]>();
  for (const [id, role] of Object.entries(roles)) {
    if (role.Properties.RoleName === undefined) continue;
    const roleName = rendered(role.Properties.RoleName);
    const statements = policies
      .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === id))
      .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
    byName.set(roleName, statements);
  }
  return byName;
}

const actionsOf = (statement: Statement) => [statement.Action ?? []].flat();

describe('the webhook secrets key policy', () => {
  it.each(STAGES)('on %s keeps the key manageable by the account but never usable by it: administration to the root, no kms:*', (name) => {
    const [key] = Object.values(resources(stage(name).statefulTemplate, 'AWS::KMS::Key'));
    const statements = (key.Properties.KeyPolicy as { Statement: Statement[] }).Statement;
    expect(statements.some((statement) => actionsOf(statement).includes('kms:*'))).toBe(false);
    const administration = statements.filter((statement) => statement.NotAction !== undefined);
    expect(administration).toHaveLength(1);
    expect(administration[0]).toMatchObject({ Effect: 'Allow', Resource: '*' });
    expect(JSON.stringify(administration[0].Principal)).toContain(':root');
    expect([administration[0].NotAction].flat().sort()).toEqual([...KEY_USE_ACTIONS].sort());
    // PutKeyPolicy, ScheduleKeyDeletion and the rest stay with the account: not among what it loses.
    for (const action of ['kms:PutKeyPolicy', 'kms:ScheduleKeyDeletion', 'kms:EnableKeyRotation', 'kms:DescribeKey']) expect(KEY_USE_ACTIONS).not.toContain(action);
  });

  it.each(STAGES)('on %s lets exactly the roles the stateless stack grants KMS use the key, each its own actions, under its own purpose', (name) => {
    const [key] = Object.values(resources(stage(name).statefulTemplate, 'AWS::KMS::Key'));
    const statements = (key.Properties.KeyPolicy as { Statement: Statement[] }).Statement.filter((statement) => statement.NotAction === undefined);
    const allowedByKey = new Set<string>();
    for (const statement of statements) {
      expect(statement.Effect).toBe('Allow');
      const purpose = statement.Condition?.StringEquals?.['kms:EncryptionContext:purpose'];
      expect(Object.keys(statement.Condition?.StringEquals ?? {})).toEqual(['kms:EncryptionContext:purpose']);
      const roles = [statement.Condition?.ArnEquals?.['aws:PrincipalArn']].flat().map(roleNameOf);
      for (const role of roles) for (const action of actionsOf(statement)) allowedByKey.add(`${role} ${action} ${purpose}`);
    }
    const grantedInIam = new Set<string>();
    for (const [role, roleStatements] of namedRoleStatements(name)) {
      for (const statement of roleStatements) {
        const kmsActions = actionsOf(statement).filter((a) => a.startsWith('kms:'));
        // Every KMS grant in IAM names its purpose too.
        if (kmsActions.length > 0) expect(Object.keys(statement.Condition?.StringEquals ?? {}), role).toEqual(['kms:EncryptionContext:purpose']);
        for (const action of kmsActions) grantedInIam.add(`${role} ${action} ${statement.Condition?.StringEquals?.['kms:EncryptionContext:purpose']}`);
      }
    }
    expect([...allowedByKey].sort()).toEqual([...grantedInIam].sort());
    expect([...allowedByKey].sort()).toEqual([
      `partner-api-${name}-delivery-${REGION} kms:Decrypt webhook-secret`,
      `partner-api-${name}-settings-${REGION} kms:Decrypt two-factor`,
      `partner-api-${name}-settings-${REGION} kms:Encrypt two-factor`,
      `partner-api-${name}-sign-in-${REGION} kms:Decrypt two-factor`,
      // Callback creation's re-check opens the owner's TOTP seed (issue 32).
      `partner-api-${name}-webhooks-${REGION} kms:Decrypt two-factor`,
      `partner-api-${name}-webhooks-${REGION} kms:Decrypt webhook-secret`,
      `partner-api-${name}-webhooks-${REGION} kms:Encrypt webhook-secret`,
    ]);
  });
});

describe('the service secrets\' resource policies', () => {
  it.each(STAGES)('on %s deny reading each secret\'s value to everyone but the roles the stateless stack grants it', (name) => {
    const { statefulTemplate, statelessTemplate } = stage(name);
    const secrets = resources(statefulTemplate, 'AWS::SecretsManager::Secret');
    const policies = Object.values(resources(statefulTemplate, 'AWS::SecretsManager::ResourcePolicy'));
    expect(policies).toHaveLength(SECRET_IDS.length);
    for (const secretId of SECRET_IDS) {
      const [logicalId] = Object.entries(secrets).find(([, secret]) => String(secret.Properties.Name).endsWith(`/${secretId}-key`))!;
      const policy = policies.find((p) => JSON.stringify(p.Properties.SecretId) === JSON.stringify({ Ref: logicalId }));
      expect(policy, secretId).toBeDefined();
      const statements = (policy!.Properties.ResourcePolicy as { Statement: Statement[] }).Statement;
      expect(statements).toHaveLength(1);
      const [deny] = statements;
      expect(deny).toMatchObject({ Effect: 'Deny', Principal: { AWS: '*' }, Action: 'secretsmanager:GetSecretValue', Resource: '*' });
      const exempt = [deny.Condition?.ArnNotEquals?.['aws:PrincipalArn']].flat().map(roleNameOf).sort();

      const secretRef = JSON.stringify(ssmParameterRef(statelessTemplate, stageReferenceNames(name).secretArn(secretId)));
      const readers = [...namedRoleStatements(name)]
        .filter(([, roleStatements]) => roleStatements.some((s) => actionsOf(s).includes('secretsmanager:GetSecretValue') && JSON.stringify(s.Resource) === secretRef))
        .map(([role]) => role)
        .sort();
      expect(exempt, secretId).toEqual(readers);
      expect(readers.length, secretId).toBeGreaterThan(0);
    }
  });

  it('exempts only the invitations and player functions from the invitation-token secret, the master key of every join link', () => {
    const [policy] = Object.values(resources(stage('prod').statefulTemplate, 'AWS::SecretsManager::ResourcePolicy')).filter((p) =>
      JSON.stringify(p.Metadata).includes('InvitationToken'),
    );
    const [deny] = (policy.Properties.ResourcePolicy as { Statement: Statement[] }).Statement;
    expect([deny.Condition?.ArnNotEquals?.['aws:PrincipalArn']].flat().map(roleNameOf).sort()).toEqual([`partner-api-prod-invitations-${REGION}`, `partner-api-prod-player-${REGION}`]);
  });
});
