/**
 * The client is a package of its own (client/package.json: ESM with types): it builds with its own tsconfig, the
 * built entry imports in plain Node, and its only runtime dependency is what the generated types need at run time
 * (openapi-fetch).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const out = mkdtempSync(join(root, 'client', '.build-test-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('@partner-api/client', () => {
  it('builds to ESM with declarations, and its entry loads in Node with the webhook helpers and the client factory', async () => {
    execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'client', 'tsconfig.json'), '--outDir', out], { stdio: 'pipe' });
    for (const file of ['index.js', 'index.d.ts', 'client.js', 'transport.js', 'webhooks.js', 'errors.js']) expect(existsSync(join(out, file)), file).toBe(true);
    const entry = (await import(join(out, 'index.js'))) as Record<string, unknown>;
    expect(Object.keys(entry).sort()).toEqual(
      expect.arrayContaining(['createPartnerClient', 'PartnerApiError', 'verifyWebhook', 'answerVerification', 'fileDeduplicator', 'createWebhookHandler']),
    );
  }, 120_000);

  it('declares ESM, its types, and openapi-fetch as its one runtime dependency', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'client', 'package.json'), 'utf8')) as Record<string, any>;
    expect(manifest).toMatchObject({ type: 'module', types: './dist/index.d.ts', exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } } });
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);
  });
});
