/** The typed client's types are generated from the partner API's document (scripts/client-types.ts), never edited. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, renderClientTypes } from '../../../scripts/client-types';

describe('client/src/schema.generated.ts', () => {
  it('is committed as generated: run `npm run openapi` after changing a route or a contract', async () => {
    expect(readFileSync(join(import.meta.dirname, '..', '..', '..', CLIENT_TYPES_FILE), 'utf8')).toBe(await renderClientTypes());
  });
});
