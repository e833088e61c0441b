/**
 * `npm run openapi`: write the OpenAPI documents (scripts/openapi-document.ts), docs/openapi.json and
 * docs/settings-openapi.json, and the typed client's types generated from the first (scripts/client-types.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_TYPES_FILE, renderClientTypes } from './client-types';
import { OPENAPI_SURFACES, renderOpenApiDocument } from './openapi-document';

const root = join(import.meta.dirname, '..');
for (const surface of OPENAPI_SURFACES) {
  writeFileSync(join(root, surface.file), renderOpenApiDocument(surface));
  console.log(`${surface.file} written`);
}
writeFileSync(join(root, CLIENT_TYPES_FILE), await renderClientTypes());
console.log(`${CLIENT_TYPES_FILE} written`);
