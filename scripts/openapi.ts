/** `npm run openapi`: write the OpenAPI document (scripts/openapi-document.ts) to docs/openapi.json. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPENAPI_FILE, renderOpenApiDocument } from './openapi-document';

const target = join(import.meta.dirname, '..', OPENAPI_FILE);
writeFileSync(target, renderOpenApiDocument());
console.log(`${OPENAPI_FILE} written`);
