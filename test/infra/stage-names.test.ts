/**
 * No stage can claim another stage's names. Physical names are unique per account and Region, and
 * every one is `partner-api-<stage>` (or `partner-api/<stage>`) followed by the resource's own part:
 * with hyphens allowed in stage names, stage `x-web` would have produced stage `x`'s web-side names
 * (`partner-api-x-web`, `partner-api-x-web-edge`, `aws-waf-logs-partner-api-x-web`) and its first
 * deploy would have failed, or worse, taken them over. Stage names are refused with a hyphen
 * (lib/config/stage-config.ts), and the names of real stages are disjoint.
 */
import { describe, expect, it } from 'vitest';
import { physicalNameOf } from '../../lib/compliance/physical-names';
import { StageConfigError } from '../../lib/config/stage-config';
import { stage, synthStage } from './support';

/** Every physical name a stage's two stacks give, as `<type> <name>`. */
function physicalNames(name: string): string[] {
  const { statefulTemplate, statelessTemplate } = stage(name);
  return [statefulTemplate, statelessTemplate].flatMap((template) =>
    Object.values(template.toJSON().Resources as Record<string, { Type: string; Properties?: Record<string, unknown> }>).flatMap((resource) => {
      const physical = physicalNameOf(resource);
      return physical === undefined ? [] : [`${resource.Type} ${physical}`];
    }),
  );
}

// Synthesized while the tests are collected, not within a test's time limit.
for (const name of ['x', 'xweb', 'xapi', 'prod']) stage(name);

describe('physical names across stages', () => {
  it.each(['x-web', 'x-api', 'dev-web'])('refuses to build stage %s, whose names would collide with another stage’s', (name) => {
    expect(() => synthStage({ stage: name })).toThrow(StageConfigError);
  });

  it('gives stages x, xweb and xapi disjoint names, each carrying its own stage token', () => {
    const byStage = Object.fromEntries(['x', 'xweb', 'xapi'].map((name) => [name, physicalNames(name)]));

    for (const [name, names] of Object.entries(byStage)) {
      expect(names.length).toBeGreaterThan(10);
      expect(new Set(names).size, `${name}: a name given twice`).toBe(names.length);
      for (const entry of names) expect(entry, entry).toMatch(new RegExp(`partner-api[-/]${name}(?![a-z0-9])`));
      for (const [other, otherNames] of Object.entries(byStage)) {
        if (other !== name) expect(names.filter((entry) => otherNames.includes(entry)), `${name} and ${other}`).toEqual([]);
      }
    }
  });

  it('names both surfaces of a stage apart (the web side’s API, web ACL and WAF log group), every alarm once', () => {
    const names = physicalNames('prod');

    expect(names).toEqual(
      expect.arrayContaining([
        'AWS::ApiGateway::RestApi partner-api-prod',
        'AWS::ApiGateway::RestApi partner-api-prod-web',
        'AWS::WAFv2::WebACL partner-api-prod-edge',
        'AWS::WAFv2::WebACL partner-api-prod-web-edge',
        'AWS::Logs::LogGroup aws-waf-logs-partner-api-prod',
        'AWS::Logs::LogGroup aws-waf-logs-partner-api-prod-web',
      ]),
    );
    expect(new Set(names).size).toBe(names.length);
  });
});
