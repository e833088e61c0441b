/** `npm run openapi`: write the OpenAPI documents (scripts/openapi-document.ts): docs/openapi.json and docs/settings-openapi.json. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPENAPI_SURFACES, renderOpenApiDocument } from './openapi-document';

for (const surface of OPENAPI_SURFACES) {
  writeFileSync(join(import.meta.dirname, '..', surface.file), renderOpenApiDocument(surface));
  console.log(`${surface.file} written`);
}
