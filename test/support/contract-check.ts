/**
 * Every response the integration tests receive through `stack.call` is
 * checked against the committed OpenAPI document: for an operation the
 * document declares, its status must be declared and its body must match
 * that status's schema (the data schema, or the error envelope with the codes
 * the operation may answer); for a path the document does not declare (a
 * test-only route, an unknown path), the body must still be a spec envelope
 * with a known code. Every response carries X-Request-Id and
 * Cache-Control: no-store.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ERROR_CATALOG } from '../../lambdas/shared/errors';
import { OPENAPI_FILE } from '../../scripts/openapi-document';

type Json = Record<string, any>;

const document = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', OPENAPI_FILE), 'utf8')) as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(document, 'api');

const operations = Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([template, methods]) =>
  Object.keys(methods).map((method) => ({
    template,
    method,
    pattern: new RegExp(`^${template.replace(/\{[a-z_]+\}/g, '[^/]+')}$`),
  })),
);

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
const compiled = new Map<string, ValidateFunction>();
function validatorFor(template: string, method: string, status: string): ValidateFunction {
  const pointer = ['paths', template, method, 'responses', status, 'content', 'application/json', 'schema'].map(escapePointer).join('/');
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `api#/${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

const envelope = ajv.compile({
  oneOf: [
    { type: 'object', required: ['ok', 'data', 'request_id'], properties: { ok: { const: true }, request_id: { type: 'string' } } },
    {
      type: 'object',
      required: ['ok', 'error', 'request_id'],
      properties: {
        ok: { const: false },
        error: { type: 'object', required: ['code', 'message'], properties: { code: { enum: Object.keys(ERROR_CATALOG) }, message: { type: 'string' } } },
        request_id: { type: 'string' },
      },
    },
  ],
});

export class ContractViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContractViolation';
  }
}

/** Throws ContractViolation when the response breaks the document. `path` is below the base URL (`/me?x=1`). */
export async function checkResponse(method: string, path: string, response: Response): Promise<void> {
  const where = `${method} ${path} → ${response.status}`;
  if (!response.headers.get('x-request-id')) throw new ContractViolation(`${where}: no X-Request-Id`);
  if (response.headers.get('cache-control') !== 'no-store') throw new ContractViolation(`${where}: Cache-Control is not no-store`);
  const body = (await response.clone().json()) as unknown;
  if (!envelope(body)) throw new ContractViolation(`${where}: not a spec envelope: ${ajv.errorsText(envelope.errors)}`);
  const pathOnly = path.split('?')[0];
  const operation = operations.find((op) => op.method === method.toLowerCase() && op.pattern.test(pathOnly));
  if (!operation) return;
  const status = String(response.status);
  if (!(status in (document.paths[operation.template][operation.method].responses as Json))) {
    throw new ContractViolation(`${where}: status ${status} is not declared for ${operation.method.toUpperCase()} ${operation.template}`);
  }
  const validate = validatorFor(operation.template, operation.method, status);
  if (!validate(body)) throw new ContractViolation(`${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body)}`);
}
