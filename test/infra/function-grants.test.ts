/**
 * Every route's function can do with the stage's secrets key what its code does, on the synthesized prod templates:
 * from each route of the route table to the function its API Gateway method invokes, then to what that function's
 * role needs. A sealed value a route opens fails in AWS only (KMS answers AccessDeniedException; nothing local
 * enforces IAM or a key policy), so the three parts a use needs are checked together, per route:
 * - the function knows the key (SEALING_KEY_ARN, the secrets key's ARN: lambdas/shared/sealing.ts sealerOf reads it);
 * - its role's IAM policy allows the action under the use's `kms:EncryptionContext:purpose`;
 * - the key policy (stateful stack) lets that role do the same.
 * What a function needs is read twice: from SECRETS_KEY_USERS (the table both stacks are built from), and from its
 * code (a handler that reaches the two-factor seeds opens one: issue 32, the webhooks function's callback creation).
 * test/infra/resource-policies.test.ts checks that IAM and the key policy list the same roles; this file, that each
 * route's function is among them for what it does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TWO_FACTOR_PURPOSE } from '../../lambdas/back-office/two-factor-seeds';
import { SURFACE_OF_GROUP, type EndpointGroup } from '../../lambdas/shared/http/routes';
import { ROUTES } from '../../lambdas/service/routes';
import { SEALING_KEY_ENV } from '../../lambdas/shared/sealing';
import { keyUsesOf, SECRETS_KEY_USERS } from '../../lib/config/secrets-key-users';
import { functionLogicalId, methodTargets, resources, restApiLogicalId, ssmParameterRef, stage, stageReferenceNames } from './support';

type Statement = { Effect: string; Action?: string | string[]; NotAction?: unknown; Resource?: unknown; Condition?: Record<string, Record<string, unknown>> };

const NAME = 'prod';
const ROOT = resolve(__dirname, '..', '..');
const { statefulTemplate, statelessTemplate } = stage(NAME);
/** How the stateless template names the secrets key: the ARN the stateful stack publishes in SSM. */
const keyArn = ssmParameterRef(statelessTemplate, stageReferenceNames(NAME).webhookSecretsKeyArn);
const functions = resources(statelessTemplate, 'AWS::Lambda::Function');
const roles = resources(statelessTemplate, 'AWS::IAM::Role');
const policies = Object.values(resources(statelessTemplate, 'AWS::IAM::Policy'));
const [key] = Object.values(resources(statefulTemplate, 'AWS::KMS::Key'));
const keyStatements = (key.Properties.KeyPolicy as { Statement: Statement[] }).Statement;

/** A template string value as text: Fn::Join joined, references as `${…}` (both templates render a role's name alike). */
function rendered(value: unknown): string {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map(rendered).join(join[0]);
  const ref = (value as { Ref?: string }).Ref;
  if (ref) return `\${${ref}}`;
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

const actionsOf = (statement: Statement) => [statement.Action ?? []].flat();
const purposeOf = (statement: Statement) => statement.Condition?.StringEquals?.['kms:EncryptionContext:purpose'];

/** The function a route's method invokes (its API Gateway integration), by logical id. */
function servingFunction(route: (typeof ROUTES)[number]): string {
  const targets = methodTargets(statelessTemplate, restApiLogicalId(statelessTemplate, SURFACE_OF_GROUP[route.group]));
  const target = targets.get(`${route.method} ${route.path}`);
  expect(target, route.id).toBe(functionLogicalId(statelessTemplate, route.group));
  return target as string;
}

/** What a function's role and environment say about the secrets key. */
function keyAccessOf(functionId: string) {
  const fn = functions[functionId];
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const statements = policies
    .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  const variables = (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
  return {
    sealingKey: variables[SEALING_KEY_ENV],
    roleName: rendered(roles[roleId].Properties.RoleName),
    /** `action purpose` allowed in IAM on the key. */
    iam: statements.flatMap((s) => (JSON.stringify(s.Resource) === JSON.stringify(keyArn) ? actionsOf(s).filter((a) => a.startsWith('kms:')).map((a) => `${a} ${purposeOf(s)}`) : [])),
    kmsActions: statements.flatMap((s) => actionsOf(s).filter((a) => a.startsWith('kms:'))),
  };
}

/** `action purpose` the key policy lets a role (named in its aws:PrincipalArn condition) do. */
function keyPolicyAllows(roleName: string): string[] {
  return keyStatements
    .filter((s) => s.Effect === 'Allow' && s.NotAction === undefined)
    .filter((s) => [s.Condition?.ArnEquals?.['aws:PrincipalArn']].flat().some((arn) => arn !== undefined && rendered(arn).endsWith(`:role/${roleName}`)))
    .flatMap((s) => actionsOf(s).map((action) => `${action} ${purposeOf(s)}`));
}

/** The modules a handler loads (static and dynamic imports, type imports erased), from its source. */
function moduleClosure(entry: string): Set<string> {
  const pattern = /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(pattern)) {
      if (match[2] !== undefined) continue;
      const base = join(dirname(file), match[3] ?? match[4]);
      const target = [`${base}.ts`, join(base, 'index.ts')].find((path) => existsSync(join(ROOT, path)));
      if (target) pending.push(target);
    }
  }
  return seen;
}

/** The groups whose code opens a two-factor seed: their handler reaches the seeds' module (every re-check and sign-in with a code). */
const opensTwoFactorSeeds = (group: EndpointGroup) => moduleClosure(`lambdas/${group}/handler.ts`).has('lambdas/back-office/two-factor-seeds.ts');

const routeGroups = [...new Set(ROUTES.map((route) => route.group))];

describe('each route\'s function and the secrets key (prod)', () => {
  it('has the key and, in IAM and in the key policy, every use its role has in SECRETS_KEY_USERS, each under its purpose', () => {
    // Prepare
    const checked: string[] = [];

    // Act
    for (const route of ROUTES) {
      const access = keyAccessOf(servingFunction(route));
      const uses = keyUsesOf(route.group).flatMap((use) => use.actions.map((action) => `${action} ${use.purpose}`));

      // Assess
      if (uses.length === 0) continue;
      expect(access.sealingKey, `${route.id} (${route.group}): ${SEALING_KEY_ENV}`).toEqual(keyArn);
      for (const use of uses) {
        expect(access.iam, `${route.id} (${route.group}): IAM ${use}`).toContain(use);
        expect(keyPolicyAllows(access.roleName), `${route.id} (${route.group}): key policy ${use}`).toContain(use);
      }
      checked.push(route.id);
    }
    // The table reaches routes: web settings' at least (sessions, keys, callbacks).
    expect(checked).toEqual(expect.arrayContaining(['settings-sign-in', 'settings-key-create', 'webhook-create']));
  });

  it.each(routeGroups.filter(opensTwoFactorSeeds))('lets %s, whose code opens two-factor seeds, decrypt them: the key, kms:Decrypt under `two-factor` in IAM and the key policy', (group) => {
    // Prepare
    const routes = ROUTES.filter((route) => route.group === group);

    for (const route of routes) {
      // Act
      const access = keyAccessOf(servingFunction(route));

      // Assess
      expect(access.sealingKey, `${route.id}: ${SEALING_KEY_ENV}`).toEqual(keyArn);
      expect(access.iam, route.id).toContain(`kms:Decrypt ${TWO_FACTOR_PURPOSE}`);
      expect(keyPolicyAllows(access.roleName), route.id).toContain(`kms:Decrypt ${TWO_FACTOR_PURPOSE}`);
    }
  });

  it('gives the webhooks function, which serves callback creation, the key and kms:Decrypt of `two-factor` (its re-check opens the seed), never Encrypt', () => {
    // Prepare
    const route = ROUTES.find((candidate) => candidate.id === 'webhook-create');
    expect(route?.group).toBe('webhooks');

    // Act
    const access = keyAccessOf(servingFunction(route!));

    // Assess
    expect(access.sealingKey).toEqual(keyArn);
    expect(access.iam).toContain(`kms:Decrypt ${TWO_FACTOR_PURPOSE}`);
    expect(access.iam).not.toContain(`kms:Encrypt ${TWO_FACTOR_PURPOSE}`);
    expect(keyPolicyAllows(access.roleName)).toContain(`kms:Decrypt ${TWO_FACTOR_PURPOSE}`);
    expect(keyPolicyAllows(access.roleName)).not.toContain(`kms:Encrypt ${TWO_FACTOR_PURPOSE}`);
  });

  it('gives a function without a key use neither the key nor any KMS action, and none of those functions\' code seals', () => {
    // Prepare
    const keyless = routeGroups.filter((group) => !(group in SECRETS_KEY_USERS));
    expect(keyless.length).toBeGreaterThan(0);

    for (const group of keyless) {
      // Act
      const access = keyAccessOf(functionLogicalId(statelessTemplate, group));

      // Assess
      expect(access.sealingKey, group).toBeUndefined();
      expect(access.kmsActions, group).toEqual([]);
      expect(moduleClosure(`lambdas/${group}/handler.ts`).has('lambdas/shared/sealing.ts'), `${group} reaches lambdas/shared/sealing.ts`).toBe(false);
    }
  });
});
