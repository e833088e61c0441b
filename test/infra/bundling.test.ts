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

describe('function bundling', () => {
  it('bundles each handler (and the scheduled job) with local esbuild into minified CJS with a source map and the AWS SDK inside', () => {
    // Act
    const { statelessTemplate } = synthStage({ stage: 'pr-bundle', bundle: true, outdir });

    // Assess
    const functions = Object.values(resources(statelessTemplate, 'AWS::Lambda::Function'));
    // One per endpoint group, the two scheduled jobs, the webhook fan-out and the webhook delivery worker.
    expect(functions).toHaveLength(ENDPOINT_GROUPS.length + 4);
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
  }, 120_000);
});
