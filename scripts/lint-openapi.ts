/**
 * `npm run lint:openapi`: lint both contract documents (docs/openapi.json, docs/settings-openapi.json, as
 * `npm run openapi` writes them) with an external OpenAPI linter, Redocly's engine (@redocly/openapi-core) run
 * in-process, under the ruleset in redocly.yaml. Prints each problem as `severity ruleId file#pointer: message` and
 * exits non-zero on any, warnings included; test/unit/docs/openapi-lint.test.ts holds `npm test` to the same.
 *
 * It never reaches the network: the documents' $refs are all local (`#/components/...`), the ruleset extends a
 * built-in one and loads no plugin, and the resolver below refuses any URL rather than fetching it.
 */
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BaseResolver,
  isAbsoluteUrl,
  lint,
  lintConfig,
  loadConfig,
  ResolveError,
  Source,
  type Config,
  type NormalizedProblem,
} from '@redocly/openapi-core';
import { OPENAPI_SURFACES } from './openapi-document';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REDOCLY_CONFIG = 'redocly.yaml';

/** Reads files only: a URL (a remote $ref, `extends` or plugin) is an unresolved reference, never a request. */
export class LocalOnlyResolver extends BaseResolver {
  override async loadExternalRef(absoluteRef: string): Promise<Source> {
    if (isAbsoluteUrl(absoluteRef)) throw new ResolveError(new Error(`lint-openapi reads local files only, not ${absoluteRef}`));
    return super.loadExternalRef(absoluteRef);
  }
}

export interface LintedDocument {
  /** Relative to the repository. */
  readonly file: string;
  readonly problems: readonly NormalizedProblem[];
}

export interface OpenApiLint {
  /** Problems in redocly.yaml itself (an unknown key, a misspelt rule name: a ruleset that would silently check less). */
  readonly configProblems: readonly string[];
  readonly documents: readonly LintedDocument[];
}

const rel = (path: string) => (isAbsolute(path) ? relative(root, path) : path);

/** `severity ruleId file#pointer: message`, one line per problem. */
export function formatProblem(problem: NormalizedProblem & { ignored?: boolean }): string {
  const where = problem.location[0];
  const pointer = where ? `${rel(where.source.absoluteRef)}${where.pointer ?? ''}` : '(no location)';
  return `${problem.severity} ${problem.ruleId} ${pointer}: ${problem.message}${problem.ignored ? ' (ignored by an ignore file: not accepted)' : ''}`;
}

/** The documents redocly.yaml names (its `apis`); they must be exactly the ones `npm run openapi` writes. */
function documentsOf(config: Config): string[] {
  const named = Object.values(config.resolvedConfig.apis ?? {}).map((api) => rel(resolve(root, api.root)));
  const written = OPENAPI_SURFACES.map((surface) => surface.file);
  const missing = written.filter((file) => !named.includes(file));
  const extra = named.filter((file) => !written.includes(file));
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(`${REDOCLY_CONFIG}'s apis must name the documents npm run openapi writes: missing [${missing.join(', ')}], extra [${extra.join(', ')}]`);
  }
  return written;
}

export async function lintOpenApiDocuments(): Promise<OpenApiLint> {
  const resolver = new LocalOnlyResolver();
  const config = await loadConfig({ configPath: join(root, REDOCLY_CONFIG), externalRefResolver: resolver });
  const configProblems = (await lintConfig({ config, externalRefResolver: resolver })).map(formatProblem);
  const documents: LintedDocument[] = [];
  for (const file of documentsOf(config)) {
    documents.push({ file, problems: await lint({ ref: join(root, file), config, externalRefResolver: resolver }) });
  }
  return { configProblems, documents };
}

/** Every problem, one line each; empty when both documents and the ruleset are clean. */
export function problemLines(result: OpenApiLint): string[] {
  return [...result.configProblems, ...result.documents.flatMap((document) => document.problems.map(formatProblem))];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const result = await lintOpenApiDocuments();
  const lines = problemLines(result);
  for (const line of lines) console.log(line);
  for (const document of result.documents) console.log(`${document.file}: ${document.problems.length} problem(s)`);
  if (lines.length > 0) {
    console.error(
      `lint:openapi: ${lines.length} problem(s): fix the builder (scripts/openapi-document.ts) and run npm run openapi, or justify a rule change in ${REDOCLY_CONFIG}`,
    );
    process.exitCode = 1;
  }
}
