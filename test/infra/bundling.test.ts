/**
 * The one test that bundles for real: the local esbuild produces per function an ES module handler (`index.mjs`)
 * and its chunks, the AWS SDK inside; the bundle loads and answers in a fresh Node 24 the way Lambda runs it.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { ENDPOINT_GROUPS } from '../../lambdas/shared/http/routes';
import { benchNode } from '../../bench/bundles';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { PROJECT_ROOT, SERVICE_HANDLER, SERVICE_RUNTIME, serviceCode } from '../../lib/constructs/service-function';
import { resources, synthStage } from './support';

const OPTIONAL_SDK_MODULES = ['@aws-sdk/signature-v4-crt', '@aws-sdk/signature-v4a'];
const run = promisify(execFile);

/** The files a cold start loads: `entry` and what it imports statically (`import … from "./…"`, not `import("./…")`), transitively. */
function staticClosure(assetDir: string, entry: string): Set<string> {
  const loaded = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (loaded.has(file)) continue;
    loaded.add(file);
    const code = readFileSync(join(assetDir, file), 'utf8');
    for (const [, path] of code.matchAll(/(?:^|[;}\s])import\s*(?:[\w$\s{},*]+?from\s*)?["'](\.{1,2}\/[^"']+)["']/g)) {
      pending.push(posix.normalize(posix.join(posix.dirname(file), path)));
    }
  }
  return loaded;
}

/** Every JavaScript file of an asset, chunks included, with its text. */
function assetScripts(assetDir: string): Array<[string, string]> {
  return readdirSync(assetDir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.mjs'))
    .map((file) => [file, readFileSync(join(assetDir, file), 'utf8')]);
}
const outdir = mkdtempSync(join(tmpdir(), 'partner-api-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
/** The stage bundled into `outdir`, once for the file (each synthesis runs esbuild for every function). */
let bundled: ReturnType<typeof synthStage> | undefined;
const bundledStage = () => (bundled ??= synthStage({ stage: 'prbundle', bundle: true, outdir }));

describe('function bundling', () => {
  it('bundles each handler (and the jobs) with local esbuild into minified ES module chunks with source maps and the AWS SDK inside', () => {
    // Act
    const { statelessTemplate } = bundledStage();

    // Assess
    const functions = Object.values(resources(statelessTemplate, 'AWS::Lambda::Function'));
    // One per endpoint group, the two scheduled jobs, the webhook fan-out, delivery worker and sweeper.
    expect(functions).toHaveLength(ENDPOINT_GROUPS.length + 5);
    for (const fn of functions) {
      expect(fn.Properties.Handler).toBe('index.handler');
      const assetDir = join(outdir, String(fn.Metadata?.['aws:asset:path']));
      expect(readdirSync(assetDir).sort()).toEqual(['chunks', 'index.mjs', 'index.mjs.map']);
      const scripts = assetScripts(assetDir);
      const entry = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
      expect(entry).toMatch(/export\{[^}]*as handler[^}]*\}/);
      for (const [file, code] of scripts) {
        expect(code.includes(`sourceMappingURL=${file.split('/').pop()}.map`), file).toBe(true);
        // The SDK is inside the bundle; only the optional SigV4a signers (loaded in a try/catch, unused here) stay bare.
        const externalSdk = new Set([...code.matchAll(/(?:require\(|from ?)["'](@aws-sdk\/[^"']+)["']/g)].map((m) => m[1]));
        expect([...externalSdk].filter((name) => !OPTIONAL_SDK_MODULES.includes(name)), file).toEqual([]);
      }
      expect(scripts.some(([, code]) => code.includes('DynamoDBClient'))).toBe(true);
    }
    // esbuild runs once per function (13 of them), each through npx: more than the default 30 s on a busy machine.
  }, 600_000);

  it('gives a function the same code hash whatever the output folder (a deploy from another folder redeploys nothing)', () => {
    // Prepare: two of the stage's functions (one with no table, one with the AWS SDK inside) built by the same
    // serviceCode into a folder two levels deeper, as `cdk synth -o cdk.out/dev` does beside `cdk.out`. Every function
    // of the stage is built by serviceCode (the first test: one asset per function, `index.handler`), so two stand for
    // all without bundling the stage a second time.
    const shallow = bundledStage();
    const stageKeys = Object.values(resources(shallow.statelessTemplate, 'AWS::Lambda::Function')).map((fn) => (fn.Properties.Code as { S3Key: unknown }).S3Key);
    const deeperDir = join(outdir, 'nested', 'deeper');
    const app = new App({ outdir: deeperDir, context: { 'aws:cdk:enable-asset-metadata': true } });
    const stack = new Stack(app, 'Deeper');
    for (const group of ['system', 'records']) {
      new lambda.Function(stack, group, { runtime: SERVICE_RUNTIME, handler: SERVICE_HANDLER, code: serviceCode(join(PROJECT_ROOT, 'lambdas', group, 'handler.ts')) });
    }

    // Act
    const deeper = Object.values(resources(Template.fromStack(stack), 'AWS::Lambda::Function'));

    // Assess: the same keys as the stage's own bundles of those entries.
    const deeperKeys = deeper.map((fn) => (fn.Properties.Code as { S3Key: unknown }).S3Key);
    expect(new Set(deeperKeys).size).toBe(2);
    expect(stageKeys).toEqual(expect.arrayContaining(deeperKeys));
    // Because each source map names its sources from the project root, never from the assembly's folder.
    for (const fn of deeper) {
      const map = JSON.parse(readFileSync(join(deeperDir, String(fn.Metadata?.['aws:asset:path']), 'index.mjs.map'), 'utf8')) as { sources: string[] };
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
      const assetDir = join(outdir, String(fn.Metadata?.['aws:asset:path']));
      const mapFiles = readdirSync(assetDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.map'));
      // Named from the project root whatever the map's folder (a chunk's map names `../lambdas/…`).
      const sources = mapFiles.flatMap((file) => (JSON.parse(readFileSync(join(assetDir, file), 'utf8')) as { sources: string[] }).sources.map((source) => source.replace(/^\.\.\//, '')));
      const map = { sources: [...new Set(sources)] };
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
      // Signing in answers the session view: its schema is the settings group's.
      'sign-in': ['lambdas/settings/settings-contracts.ts', 'lambdas/sign-in/sign-in-contracts.ts'],
      webhooks: ['lambdas/webhooks/webhook-contracts.ts'],
    });
  }, 600_000);

  it("loads no table's key schemas or indexes at any API function's cold start: its table names come from table-ids.ts alone", () => {
    // Act: the bundles of the first test; a cold start's modules are those its statically imported files' maps name.
    const { statelessTemplate } = bundledStage();

    // Assess
    const coldStartModules: Record<string, string[]> = {};
    for (const fn of Object.values(resources(statelessTemplate, 'AWS::Lambda::Function'))) {
      const assetDir = join(outdir, String(fn.Metadata?.['aws:asset:path']));
      const modules = [...staticClosure(assetDir, 'index.mjs')].flatMap((file) =>
        (JSON.parse(readFileSync(join(assetDir, `${file}.map`), 'utf8')) as { sources: string[] }).sources.map((source) => source.replace(/^(\.\.\/)+/, '')),
      );
      const entry = modules.find((source) => /^lambdas\/[a-z-]+\/handler\.ts$/.test(source));
      if (entry) coldStartModules[entry.split('/')[1]] = modules.filter((source) => source.startsWith('lambdas/shared/storage/table-'));
    }
    expect(Object.keys(coldStartModules).sort()).toEqual([...ENDPOINT_GROUPS].sort());
    for (const [group, modules] of Object.entries(coldStartModules)) expect(modules, group).not.toContain('lambdas/shared/storage/table-definitions.ts');
    // The system function reads no table; every other one reads its table names at its cold start.
    expect(coldStartModules.webhooks).toContain('lambdas/shared/storage/table-ids.ts');
  }, 600_000);

  it('loads every bundle in a fresh Node 24 as Lambda does, and the system function answers GET /health with the tracer loaded', async () => {
    // Prepare
    const { statelessTemplate } = bundledStage();
    const node = benchNode(PROJECT_ROOT);
    const probe = join(PROJECT_ROOT, 'test', 'infra', 'fixtures', 'invoke-bundle.mjs');
    const functions = Object.values(resources(statelessTemplate, 'AWS::Lambda::Function'));
    const entryOf = (fn: (typeof functions)[number]) => join(outdir, String(fn.Metadata?.['aws:asset:path']), 'index.mjs');
    const deployed = { ...process.env, NODE_OPTIONS: '--enable-source-maps' };

    // Act: each bundle imported (its static chunks, the createRequire banner's requires of CommonJS packages).
    for (const fn of functions) {
      const { stdout } = await run(node, [probe, entryOf(fn)], { env: deployed });
      expect(stdout.trim().split('\n').pop()).toBe('loaded');
    }
    // Act: the system function invoked inside a Lambda-like environment, so its first invocation imports the tracer's chunk
    // (Powertools Tracer and the X-Ray SDK, CommonJS inside an ES module bundle).
    const system = functions.find((fn) => String(fn.Properties.Description).endsWith(': system endpoints'));
    if (!system) throw new Error('no system function in the template');
    const event = {
      httpMethod: 'GET',
      path: '/v1/health',
      resource: '/health',
      headers: { Host: 'api.example.com' },
      multiValueHeaders: { Host: ['api.example.com'] },
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId: 'bundle-test-request', stage: 'v1', identity: { sourceIp: '127.0.0.1' }, requestTimeEpoch: Date.now(), path: '/v1/health', resourcePath: '/health', httpMethod: 'GET' },
    };
    const lambdaLike = {
      ...deployed,
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      AWS_LAMBDA_FUNCTION_NAME: 'partner-api-bundle-test',
      AWS_REGION: 'us-east-1',
      POWERTOOLS_TRACE_ENABLED: 'true',
      _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
      AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
      API_SURFACE: 'partner',
    };
    const { stdout } = await run(node, [probe, entryOf(system), JSON.stringify(event)], { env: lambdaLike });

    // Assess
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { statusCode: number; body: string };
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ ok: true, data: { status: 'ok', version: 'v1' } });
    // The X-Ray SDK's chunk is loaded by that invocation only: it is not the handler's file.
    const assetDir = join(outdir, String(system.Metadata?.['aws:asset:path']));
    const tracerChunks = assetScripts(assetDir).filter(([, code]) => code.includes('AWS_XRAY_DAEMON_ADDRESS'));
    expect(tracerChunks.length).toBeGreaterThan(0);
    const coldStart = staticClosure(assetDir, 'index.mjs');
    expect(coldStart.size).toBeGreaterThan(3);
    expect(tracerChunks.map(([file]) => file).filter((file) => coldStart.has(file))).toEqual([]);
  }, 600_000);
});
