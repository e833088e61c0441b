/**
 * The integration test's stage (INTEG_STAGE, test/integ/integ.partner-api.ts): a real stage of its own kind, with the
 * base settings, whose every resource goes with its stacks (the test destroys it at the end of every run, and the next
 * run creates the same names again), and which deploys what any ephemeral stage deploys: nothing of the test reaches
 * its functions (no variable of its own), so the deployed-stage guards (no local-only switch in a deployed function,
 * lambdas/webhooks/webhook-runtime.ts) hold for it as for any stage.
 */
import { describe, expect, it } from 'vitest';
import { assertValidStageConfig, INTEG_STAGE, resolveStageConfig, StageConfigError, type StageConfig } from '../../lib/config/stage-config';
import { stage } from './support';

// Synthesized while the tests are collected, not within a test's time limit.
const integ = stage(INTEG_STAGE);
const ephemeral = stage('pr4242');

type Resource = { Type: string; Properties?: Record<string, unknown>; DeletionPolicy?: string; UpdateReplacePolicy?: string };
const resourcesOf = (template: { toJSON(): unknown }) => Object.entries((template.toJSON() as { Resources: Record<string, Resource> }).Resources);

/** How many resources of each type a template has. */
const typeCounts = (template: { toJSON(): unknown }) => {
  const counts: Record<string, number> = {};
  for (const [, resource] of resourcesOf(template)) counts[resource.Type] = (counts[resource.Type] ?? 0) + 1;
  return counts;
};

/** Each function's variables, by description, the stage's name replaced by `<stage>` (a reference's value: `ref`). */
const functionEnvironments = (template: { toJSON(): unknown }, name: string) =>
  Object.fromEntries(
    resourcesOf(template)
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
      .map(([, { Properties }]) => [
        String(Properties?.Description).replaceAll(name, '<stage>'),
        Object.fromEntries(
          Object.entries((Properties?.Environment as { Variables: Record<string, unknown> }).Variables).map(([variable, value]) => [
            variable,
            typeof value === 'string' ? value.replaceAll(name, '<stage>') : 'ref',
          ]),
        ),
      ]),
  );

describe('the integ stage', () => {
  it('is a stage with the base settings: destroyed with its stacks, no deletion protection', () => {
    const config = resolveStageConfig(INTEG_STAGE);

    expect(config).toMatchObject({ stage: 'integ', longLived: false, removalPolicy: 'destroy', deletionProtection: false, pointInTimeRecovery: false });
    expect({ ...config, stage: 'x' }).toEqual({ ...resolveStageConfig('pr4242'), stage: 'x' });
    expect(resolveStageConfig('pr4242').longLived).toBe(false);
    expect(resolveStageConfig('dev').longLived).toBe(true);
  });

  it.each<[string, Partial<StageConfig>]>([
    ['retained resources', { removalPolicy: 'retain' }],
    ['deletion protection', { removalPolicy: 'retain', deletionProtection: true }],
    ['a custom domain', { customDomains: { web: { name: 'play.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/00000000-0000-0000-0000-000000000000' } } }],
  ])('refuses %s on the integ stage', (_, change) => {
    const config = { ...resolveStageConfig(INTEG_STAGE), ...change };

    expect(() => assertValidStageConfig(config)).toThrow(StageConfigError);
    expect(() => assertValidStageConfig({ ...config, stage: 'pr4242' })).not.toThrow();
  });

  it('leaves nothing behind: no resource retained, tables unprotected, stacks unprotected, the key deleted after 7 days', () => {
    for (const { stack, template } of [
      { stack: integ.stateful, template: integ.statefulTemplate },
      { stack: integ.stateless, template: integ.statelessTemplate },
    ]) {
      expect(stack.terminationProtection, stack.stackName).toBe(false);
      for (const [id, resource] of resourcesOf(template)) {
        expect([undefined, 'Delete'], `${stack.stackName} ${id} DeletionPolicy`).toContain(resource.DeletionPolicy);
        expect([undefined, 'Delete'], `${stack.stackName} ${id} UpdateReplacePolicy`).toContain(resource.UpdateReplacePolicy);
        if (resource.Type === 'AWS::DynamoDB::GlobalTable') expect(resource.Properties?.DeletionProtectionEnabled ?? false, id).toBe(false);
        if (resource.Type === 'AWS::KMS::Key') expect(resource.Properties?.PendingWindowInDays, id).toBe(7);
      }
    }
  });

  it('deploys what an ephemeral stage deploys: the same resources, the same variables in every function', () => {
    expect(typeCounts(integ.statefulTemplate)).toEqual(typeCounts(ephemeral.statefulTemplate));
    expect(typeCounts(integ.statelessTemplate)).toEqual(typeCounts(ephemeral.statelessTemplate));
    const environments = functionEnvironments(integ.statelessTemplate, INTEG_STAGE);
    expect(Object.keys(environments).length).toBeGreaterThan(10);
    expect(environments).toEqual(functionEnvironments(ephemeral.statelessTemplate, 'pr4242'));
  });
});
