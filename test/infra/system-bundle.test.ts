/**
 * The system function (GET /health and the 404s) calls no table: what its cold start loads, bundled with the stack's
 * own esbuild options (lib/config/bundling.ts), holds no DynamoDB client. The platform's client and admission store
 * are imported on their first call (platform.ts), which this function never makes: their chunks are in the asset,
 * loaded by nothing. Every other function's cold start loads its front door only: Powertools, its contracts (and zod),
 * its operations and their stores load beside the first round trip (lazy-chunk.ts). Read from esbuild's metafile
 * (which modules each output holds, which outputs the handler's file imports statically), not from timings.
 */
import { buildSync, type Metafile } from 'esbuild';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handlerEntry } from '../../lib/constructs/api-function';
import { PROJECT_ROOT } from '../../lib/constructs/service-function';
import { lambdaBuildOptions } from '../../lib/config/bundling';
import { ENDPOINT_GROUPS, type EndpointGroup } from '../../lambdas/shared/http/routes';

const bundles = new Map<EndpointGroup, Metafile>();

/** `group`'s bundle with the stack's options, nothing written: its modules by output file, and its modules' imports (built once a file). */
function bundleOf(group: EndpointGroup): Metafile {
  let metafile = bundles.get(group);
  if (!metafile) {
    const options = lambdaBuildOptions(PROJECT_ROOT, handlerEntry(group), join(PROJECT_ROOT, 'node_modules', '.cache', 'system-bundle-test', group));
    metafile = buildSync({ ...options, write: false, logLevel: 'silent' }).metafile;
    bundles.set(group, metafile);
  }
  return metafile;
}
const bundleInputs = (group: EndpointGroup): Metafile['outputs'] => bundleOf(group).outputs;

const POWERTOOLS = /node_modules\/@aws-lambda-powertools\//;
const ZOD = /node_modules\/zod\//;
/** Every function but system: each declares its contracts lazily and its operations in a chunk (lazy-chunk.ts). */
const SERVING_GROUPS = ENDPOINT_GROUPS.filter((group) => group !== 'system');

const DYNAMODB_CLIENT = /node_modules\/@aws-sdk\/(client-dynamodb|lib-dynamodb)\//;

/** The outputs a cold start loads: the handler's file and what it imports statically, transitively (not `import()`). */
function coldStartOutputs(outputs: Metafile['outputs']): Metafile['outputs'][string][] {
  const entry = Object.keys(outputs).find((file) => file.endsWith('/index.mjs'));
  const loaded = new Set<string>();
  for (let pending = entry ? [entry] : [], next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (loaded.has(next)) continue;
    loaded.add(next);
    for (const imported of outputs[next].imports) if (imported.kind === 'import-statement' && outputs[imported.path]) pending.push(imported.path);
  }
  return [...loaded].map((file) => outputs[file]);
}

const modulesMatching = (outputs: Metafile['outputs'], pattern: RegExp) =>
  coldStartOutputs(outputs).flatMap((output) => Object.keys(output.inputs).filter((input) => pattern.test(input)));

describe('the system function’s bundle', () => {
  it('loads no module of @aws-sdk/client-dynamodb or @aws-sdk/lib-dynamodb at its cold start', () => {
    // Act
    const outputs = bundleInputs('system');

    // Assess
    expect(coldStartOutputs(outputs).length).toBeGreaterThan(0);
    expect(modulesMatching(outputs, DYNAMODB_CLIENT)).toEqual([]);
  });

  it('is told apart from a function that calls DynamoDB, whose cold start loads the client (the check sees it)', () => {
    // Act
    const outputs = bundleInputs('identity');

    // Assess
    expect(modulesMatching(outputs, /node_modules\/@aws-sdk\/client-dynamodb\//).length).toBeGreaterThan(0);
  });
});

describe('a function’s bundle', () => {
  it.each(ENDPOINT_GROUPS)('%s loads no module of Powertools at its cold start: its logger and metrics load while the first round trip is in flight', (group) => {
    // Act
    const outputs = bundleInputs(group);

    // Assess: in the asset, loaded by nothing at the cold start.
    expect(coldStartOutputs(outputs).length).toBeGreaterThan(0);
    expect(modulesMatching(outputs, POWERTOOLS)).toEqual([]);
    expect(Object.values(outputs).some((output) => Object.keys(output.inputs).some((input) => POWERTOOLS.test(input)))).toBe(true);
  });
});

describe('a function’s contracts and operations', () => {
  it.each(SERVING_GROUPS)('%s loads no module of zod at its cold start: its contracts load while the first round trip is in flight', (group) => {
    // Act
    const outputs = bundleInputs(group);

    // Assess: in the asset (its contracts), loaded by nothing at the cold start.
    expect(modulesMatching(outputs, ZOD)).toEqual([]);
    expect(modulesMatching(outputs, /-contracts\.ts$/)).toEqual([]);
    expect(Object.values(outputs).some((output) => Object.keys(output.inputs).some((input) => ZOD.test(input)))).toBe(true);
  });

  it.each(SERVING_GROUPS)('%s loads nothing its handler imports with import() at its cold start: its operations, their stores and its page load beside the first round trip', (group) => {
    // Prepare
    const { inputs, outputs } = bundleOf(group);
    const handler = Object.keys(inputs).find((input) => input.endsWith(`lambdas/${group}/handler.ts`)) as string;
    const lazy = inputs[handler].imports.filter((imported) => imported.kind === 'dynamic-import').map((imported) => imported.path);

    // Act
    const loaded = new Set(coldStartOutputs(outputs).flatMap((output) => Object.keys(output.inputs)));

    // Assess: the handler names its contracts and its operations' chunk (a page too, on the web side); none is loaded.
    expect(lazy.length).toBeGreaterThanOrEqual(2);
    expect(lazy.filter((module) => loaded.has(module))).toEqual([]);
  });
});
