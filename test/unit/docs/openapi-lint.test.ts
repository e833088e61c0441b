/**
 * Both contract documents pass an external OpenAPI linter (Redocly's engine, @redocly/openapi-core, in-process) under
 * redocly.yaml with no problem at all, warnings included, as `npm run lint:openapi` (scripts/lint-openapi.ts) reports.
 * Linting reaches no network: fetch fails the test if called, and a remote $ref is refused, never fetched.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalOnlyResolver, formatProblem, lintOpenApiDocuments, problemLines } from '../../../scripts/lint-openapi';
import { OPENAPI_SURFACES } from '../../../scripts/openapi-document';

const root = join(__dirname, '..', '..', '..');

function refuseNetwork() {
  const fetch = vi.fn(async (input: unknown) => {
    throw new Error(`the OpenAPI lint must not reach the network (${String(input)})`);
  });
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the OpenAPI documents under the linter (redocly.yaml)', () => {
  it('have no problem at all, on both documents, with a valid ruleset and no network', async () => {
    const fetch = refuseNetwork();
    const result = await lintOpenApiDocuments();
    expect(result.documents.map((document) => document.file)).toEqual(OPENAPI_SURFACES.map((surface) => surface.file));
    // Each problem as `severity ruleId file#pointer: message`: fix the builder (scripts/openapi-document.ts) and run
    // npm run openapi, or turn the rule off in redocly.yaml with a comment saying why.
    expect(problemLines(result)).toEqual([]);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('are judged by redocly.yaml alone: no ignore file hides a problem', () => {
    expect(existsSync(join(root, '.redocly.lint-ignore.yaml'))).toBe(false);
  });

  it('would report a problem in the agreed form, and refuse a remote $ref rather than fetch it', async () => {
    const fetch = refuseNetwork();
    const config = await createConfig({ extends: ['recommended-strict'] });
    const problems = await lintFromString({
      source: JSON.stringify({
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        servers: [{ url: 'https://api.test' }],
        paths: {},
        components: { schemas: { Remote: { $ref: 'https://schemas.invalid/remote.json' } } },
      }),
      absoluteRef: join(root, 'remote-ref.json'),
      config,
      externalRefResolver: new LocalOnlyResolver(),
    });
    const lines = problems.map(formatProblem);
    expect(lines).toContain('error info-license remote-ref.json#/info: Info object should contain `license` field.');
    expect(lines.some((line) => line.startsWith('error no-unresolved-refs remote-ref.json#/components/schemas/Remote'))).toBe(true);
    expect(fetch).not.toHaveBeenCalled();
  });
});
