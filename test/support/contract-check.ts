/**
 * Every response the integration tests receive through `stack.call` is
 * checked against the committed OpenAPI documents: web settings' paths
 * (`/settings…`) against docs/settings-openapi.json, the rest against the
 * partner API's docs/openapi.json. For an operation a document declares, its
 * status must be declared and its body must match that status's schema (the
 * data schema, or the error body with the codes the operation may answer);
 * for a path it does not declare (a test-only route, an unknown path, the
 * player site), the body must still have the surface's shape with a known
 * code: the spec envelope, or the web-settings error `{code, message,
 * request_id}`. The settings page (HTML) is checked for its headers only.
 * Every response carries X-Request-Id and Cache-Control: no-store.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ERROR_CATALOG } from '../../lambdas/shared/errors';
import { GATEWAY_ONLY_ERRORS } from '../../lib/constructs/error-envelope';
import { isSettingsPath } from '../../lambdas/shared/http/routes';
import { OPENAPI_FILE, SETTINGS_OPENAPI_FILE } from '../../scripts/openapi-document';
import { followRef } from './openapi-refs';

type Json = Record<string, any>;

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** One committed document, its operations matched by method and path, and each response's validator compiled once. */
class ApiDocument {
  private readonly document: Json;
  private readonly operations: { template: string; method: string; pattern: RegExp }[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(
    private readonly id: string,
    file: string,
  ) {
    this.document = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', file), 'utf8')) as Json;
    ajv.addSchema(this.document, id);
    this.operations = Object.entries(this.document.paths as Record<string, Record<string, Json>>).flatMap(([template, methods]) =>
      Object.keys(methods).map((method) => ({ template, method, pattern: new RegExp(`^${template.replace(/\{[a-z_]+\}/g, '[^/]+')}$`) })),
    );
  }

  /** The declared response of the operation at this status (undefined for an operation the document does not declare), or throws. */
  private responseOf(where: string, method: string, pathOnly: string, status: string): { at: string[]; content: Json } | undefined {
    const operation = this.operations.find((op) => op.method === method.toLowerCase() && op.pattern.test(pathOnly));
    if (!operation) return undefined;
    const response = (this.document.paths[operation.template][operation.method].responses as Json)[status] as Json | undefined;
    if (!response) throw new ContractViolation(`${where}: status ${status} is not declared for ${operation.method.toUpperCase()} ${operation.template} in ${this.id}`);
    // A response the document names once (components.responses) is read where it is declared.
    const declared = followRef(this.document, response, ['paths', operation.template, operation.method, 'responses', status]);
    return { at: declared.at, content: declared.value.content as Json };
  }

  /** Whether the document declares this operation answering this status with `mediaType`. */
  declares(where: string, method: string, pathOnly: string, status: string, mediaType: string): boolean {
    return this.responseOf(where, method, pathOnly, status)?.content[mediaType] !== undefined;
  }

  /** Throws when the document declares the operation and the body does not match the schema of this status. */
  check(where: string, method: string, pathOnly: string, status: string, body: unknown): void {
    const declared = this.responseOf(where, method, pathOnly, status);
    if (!declared) return;
    if (!declared.content['application/json']) throw new ContractViolation(`${where}: no JSON body is declared for this status in ${this.id}`);
    const validate = this.validatorFor(declared.at);
    if (!validate(body)) throw new ContractViolation(`${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body)}`);
  }

  private validatorFor(at: readonly string[]): ValidateFunction {
    const pointer = [...at, 'content', 'application/json', 'schema'].map(escapePointer).join('/');
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${this.id}#/${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }
}

const partner = new ApiDocument('api', OPENAPI_FILE);
const settings = new ApiDocument('settings', SETTINGS_OPENAPI_FILE);

const knownCode = { enum: [...Object.keys(ERROR_CATALOG), ...Object.keys(GATEWAY_ONLY_ERRORS)] };

/** The partner API's (and the player site's) spec envelope. */
const envelope = ajv.compile({
  oneOf: [
    { type: 'object', required: ['ok', 'data', 'request_id'], properties: { ok: { const: true }, request_id: { type: 'string' } } },
    {
      type: 'object',
      required: ['ok', 'error', 'request_id'],
      properties: {
        ok: { const: false },
        error: { type: 'object', required: ['code', 'message'], properties: { code: knownCode, message: { type: 'string' } } },
        request_id: { type: 'string' },
      },
    },
  ],
});

/**
 * Web settings: an error is `{code, message, request_id}` and nothing else, or, when the web side's gateway or web ACL
 * answered (lib/config/front-answers.ts), that body with the envelope beside it (`ok`, `error`: it serves the player
 * site too); a success is its JSON object, never an envelope.
 */
const settingsError = ajv.compile({
  anyOf: [
    {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      additionalProperties: false,
      properties: { code: knownCode, message: { type: 'string' }, request_id: { type: 'string' } },
    },
    {
      type: 'object',
      required: ['ok', 'code', 'message', 'error', 'request_id'],
      additionalProperties: false,
      properties: {
        ok: { const: false },
        code: knownCode,
        message: { type: 'string' },
        error: { type: 'object', required: ['code', 'message'], additionalProperties: false, properties: { code: knownCode, message: { type: 'string' } } },
        request_id: { type: 'string' },
      },
    },
  ],
});
const settingsSuccess = ajv.compile({ type: 'object', not: { anyOf: [{ required: ['ok'] }, { required: ['error'] }] } });

export class ContractViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContractViolation';
  }
}

/** Throws ContractViolation when the response breaks its document. `path` is below the base URL (`/me?x=1`). */
export async function checkResponse(method: string, path: string, response: Response): Promise<void> {
  const where = `${method} ${path} → ${response.status}`;
  if (!response.headers.get('x-request-id')) throw new ContractViolation(`${where}: no X-Request-Id`);
  if (response.headers.get('cache-control') !== 'no-store') throw new ContractViolation(`${where}: Cache-Control is not no-store`);
  const pathOnly = path.split('?')[0];
  const status = String(response.status);
  const inSettings = isSettingsPath(pathOnly);
  if (inSettings && response.headers.get('content-type')?.startsWith('text/html')) {
    // The settings page: HTML, which no schema describes; only where the document declares it.
    if (!settings.declares(where, method, pathOnly, status, 'text/html')) throw new ContractViolation(`${where}: HTML where the settings document declares none`);
    return;
  }
  let body: unknown;
  try {
    body = await response.clone().json();
  } catch {
    throw new ContractViolation(`${where}: the body is not JSON`);
  }
  if (inSettings) {
    const shape = response.status >= 400 ? settingsError : settingsSuccess;
    if (!shape(body)) throw new ContractViolation(`${where}: not a web-settings ${response.status >= 400 ? 'error' : 'success'}: ${ajv.errorsText(shape.errors)} in ${JSON.stringify(body)}`);
    settings.check(where, method, pathOnly, status, body);
    return;
  }
  if (!envelope(body)) throw new ContractViolation(`${where}: not a spec envelope: ${ajv.errorsText(envelope.errors)}`);
  partner.check(where, method, pathOnly, status, body);
}
