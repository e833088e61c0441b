/**
 * The one test that bundles for real: the local esbuild produces a single
 * CommonJS file per function that carries the AWS SDK inside it.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENDPOINT_GROUPS } from '../../lambdas/shared/http/routes';
import { resources, synthStage } from './support';

const OPTIONAL_SDK_MODULES = ['@aws-sdk/signature-v4-crt', '@aws-sdk/signature-v4a'];
const outdir = mkdtempSync(join(tmpdir(), 'partner-api-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
/** The stage bundled into `outdir`, once for the file (each synthesis runs esbuild for every function). */
let bundled: ReturnType<typeof synthStage> | undefined;
const bundledStage = () => (bundled ??= synthStage({ stage: 'prbundle', bundle: true, outdir }));

describe('function bundling', () => {
  it('bundles each handler (and the scheduled job) with local esbuild into minified CJS with a source map and the AWS SDK inside', () => {
    // Act
    const { statelessTemplate } = bundledStage();

    // Assess
    const functions = Object.values(resources(statelessTemplate, 'AWS::Lambda::Function'));
    // One per endpoint group, the two scheduled jobs, the webhook fan-out, delivery worker and sweeper.
    expect(functions).toHaveLength(ENDPOINT_GROUPS.length + 5);
    for (const fn of functions) {
      const assetDir = join(outdir, String(fn.Metadata?.['aws:asset:path']));
      expect(readdirSync(assetDir).sort()).toEqual(['index.js', 'index.js.map']);
      const code = readFileSync(join(assetDir, 'index.js'), 'utf8');
      expect(code.includes('module.exports')).toBe(true);
      expect(code.includes('sourceMappingURL=index.js.map')).toBe(true);
      // The SDK is inside the bundle; only the optional SigV4a signers (loaded in a try/catch, unused here) stay bare requires.
      const externalSdk = new Set([...code.matchAll(/require\(["'](@aws-sdk\/[^"']+)["']\)/g)].map((m) => m[1]));
      expect([...externalSdk].filter((name) => !OPTIONAL_SDK_MODULES.includes(name))).toEqual([]);
      expect(code.includes('DynamoDBClient')).toBe(true);
    }
    // esbuild runs once per function (13 of them), each through npx: more than the default 30 s on a busy machine.
  }, 600_000);

  it('gives every function the same code hash whatever the output folder (a deploy from another folder redeploys nothing)', () => {
    // Prepare: the same stage bundled into a folder two levels deeper, as `cdk synth -o cdk.out/dev` does beside `cdk.out`.
    const codeKeys = (template: ReturnType<typeof synthStage>['statelessTemplate']) =>
      Object.fromEntries(Object.entries(resources(template, 'AWS::Lambda::Function')).map(([id, fn]) => [id, (fn.Properties.Code as { S3Key: unknown }).S3Key]));

    // Act
    const shallow = bundledStage();
    const deeper = synthStage({ stage: 'prbundle', bundle: true, outdir: join(outdir, 'nested', 'deeper') });

    // Assess
    expect(Object.keys(codeKeys(shallow.statelessTemplate))).toHaveLength(ENDPOINT_GROUPS.length + 5);
    expect(codeKeys(deeper.statelessTemplate)).toEqual(codeKeys(shallow.statelessTemplate));
    // Because each source map names its sources from the project root, never from the assembly's folder.
    for (const fn of Object.values(resources(deeper.statelessTemplate, 'AWS::Lambda::Function'))) {
      const map = JSON.parse(readFileSync(join(outdir, 'nested', 'deeper', String(fn.Metadata?.['aws:asset:path']), 'index.js.map'), 'utf8')) as { sources: string[] };
      expect(map.sources.filter((source) => source.startsWith('..') || source.startsWith('/'))).toEqual([]);
      expect(map.sources.some((source) => source.startsWith('lambdas/'))).toBe(true);
    }
  }, 600_000);

  it("carries each API function's own group's contracts only, and nothing of the composition (lambdas/service/)", () => {
    // Act: the bundles of the first test (their source maps list every module inside).
    const { statelessTemplate } = bundledStage();

    // Assess
    const contractsByGroup: Record<string, string[]> = {};
    for (const fn of Object.values(resources(statelessTemplate, 'AWS::Lambda::Function'))) {
      const map = JSON.parse(readFileSync(join(outdir, String(fn.Metadata?.['aws:asset:path']), 'index.js.map'), 'utf8')) as { sources: string[] };
      expect(map.sources.filter((source) => source.startsWith('lambdas/service/'))).toEqual([]);
      const entry = map.sources.find((source) => /^lambdas\/[a-z-]+\/handler\.ts$/.test(source));
      if (entry) contractsByGroup[entry.split('/')[1]] = map.sources.filter((source) => source.endsWith('-contracts.ts')).sort();
    }
    expect(contractsByGroup).toEqual({
      system: ['lambdas/system/system-contracts.ts'],
      identity: ['lambdas/identity/identity-contracts.ts'],
      records: ['lambdas/records/record-contracts.ts'],
      entitlements: ['lambdas/entitlements/entitlement-contracts.ts'],
      invitations: ['lambdas/invitations/invitation-contracts.ts'],
      // The ticket list answers Invitation objects: their schema is the invitations group's.
      tickets: ['lambdas/invitations/invitation-contracts.ts', 'lambdas/tickets/ticket-contracts.ts'],
      player: ['lambdas/player/player-contracts.ts'],
      settings: ['lambdas/settings/settings-contracts.ts'],
      webhooks: ['lambdas/webhooks/webhook-contracts.ts'],
    });
  }, 600_000);
});
