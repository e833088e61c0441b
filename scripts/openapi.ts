/**
 * `npm run openapi`: write the OpenAPI documents (scripts/openapi-document.ts), docs/openapi.json and
 * docs/settings-openapi.json, the typed client's types generated from the first (scripts/client-types.ts),
 * docs/webhooks.md's events table (scripts/events-doc.ts), and the endpoint lists of README.md and docs/invitations.md
 * (scripts/route-docs.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_EVENTS_FILE, CLIENT_METHODS_FILE, CLIENT_MODELS_FILE, CLIENT_TYPES_FILE, renderClientEvents, renderClientMethods, renderClientModels, renderClientTypes } from './client-types';
import { EVENTS_DOC_FILE, withEventsTable } from './events-doc';
import { OPENAPI_SURFACES, renderOpenApiDocument } from './openapi-document';
import { ROUTE_SECTIONS, withRouteSections } from './route-docs';

const root = join(import.meta.dirname, '..');
for (const surface of OPENAPI_SURFACES) {
  writeFileSync(join(root, surface.file), renderOpenApiDocument(surface));
  console.log(`${surface.file} written`);
}
writeFileSync(join(root, CLIENT_TYPES_FILE), await renderClientTypes());
console.log(`${CLIENT_TYPES_FILE} written`);
writeFileSync(join(root, CLIENT_EVENTS_FILE), renderClientEvents());
console.log(`${CLIENT_EVENTS_FILE} written`);
writeFileSync(join(root, CLIENT_METHODS_FILE), renderClientMethods());
console.log(`${CLIENT_METHODS_FILE} written`);
writeFileSync(join(root, CLIENT_MODELS_FILE), renderClientModels());
console.log(`${CLIENT_MODELS_FILE} written`);
writeFileSync(join(root, EVENTS_DOC_FILE), withEventsTable(readFileSync(join(root, EVENTS_DOC_FILE), 'utf8')));
console.log(`${EVENTS_DOC_FILE}: events table written`);
for (const file of new Set(Object.values(ROUTE_SECTIONS).map((section) => section.file))) {
  writeFileSync(join(root, file), withRouteSections(readFileSync(join(root, file), 'utf8')));
  console.log(`${file}: endpoint list written`);
}
