/**
 * The committed OpenAPI documents name what repeats once (scripts/openapi-compact.ts) and say exactly what the builder
 * says: dereferenced, each is the builder's inline document. Nothing repeated is left inline, so a one-endpoint change
 * is a diff of that endpoint; the formatter loses nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { canonicalJson, compactOpenApiDocument, formatJson } from '../../../scripts/openapi-compact';
import { buildOpenApiDocument, OPENAPI_SURFACES } from '../../../scripts/openapi-document';

type Json = Record<string, any>;

const committed = (file: string) => JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', file), 'utf8')) as Json;
/** Dereferenced, then read as JSON again (swagger-parser shares one object for every use of a component). */
const dereferenced = async (document: Json) => JSON.parse(JSON.stringify(await SwaggerParser.dereference(structuredClone(document) as unknown as Parameters<typeof SwaggerParser.dereference>[0]))) as Json;
/** What a caller is promised: every operation, the document's identity, and how callers authenticate. */
const contractOf = (document: Json) => ({
  openapi: document.openapi,
  info: document.info,
  servers: document.servers,
  paths: document.paths,
  webhooks: document.webhooks,
  securitySchemes: document.components.securitySchemes,
});

/** Every response object and every response body schema of the document's operations, as written (not followed). */
function responsesOf(document: Json): { responses: Json[]; bodies: Json[] } {
  const responses = Object.values(document.paths as Record<string, Record<string, Json>>).flatMap((item) =>
    Object.values(item).flatMap((operation) => Object.values(operation.responses as Record<string, Json>)),
  );
  const named = Object.values((document.components.responses ?? {}) as Record<string, Json>);
  const bodies = [...responses, ...named].flatMap((response) => Object.values((response.content ?? {}) as Record<string, Json>).map((media) => media.schema as Json));
  return { responses, bodies };
}

const repeatedInline = (values: Json[]) => {
  const seen = new Map<string, number>();
  for (const value of values.filter((item) => !('$ref' in item))) seen.set(canonicalJson(value), (seen.get(canonicalJson(value)) ?? 0) + 1);
  return [...seen].filter(([, count]) => count > 1).map(([text]) => text.slice(0, 120));
};

/**
 * The document as it was committed before the compaction (03ee03a: 470,718 and 506,699 bytes): the builder's, every
 * status and envelope inline, two-space JSON. Measured against the same contract, so a new operation keeps the bound.
 */
const inlineBytes = (surface: (typeof OPENAPI_SURFACES)[number]) => Buffer.byteLength(`${JSON.stringify(buildOpenApiDocument(surface), null, 2)}\n`);

describe.each(OPENAPI_SURFACES.map((surface) => ({ file: surface.file, surface })))('$file', ({ file, surface }) => {
  it('dereferenced, is the builder’s inline document: the same contract, as committed and as compacted now', async () => {
    const built = JSON.parse(JSON.stringify(buildOpenApiDocument(surface))) as Json;
    const expected = contractOf(await dereferenced(built));
    expect(contractOf(await dereferenced(committed(file)))).toEqual(expected);
    expect(contractOf(await dereferenced(JSON.parse(formatJson(compactOpenApiDocument(built))) as Json))).toEqual(expected);
  });

  it('is under a quarter of the same contract written inline, webhooks section included', () => {
    const bytes = readFileSync(join(import.meta.dirname, '..', '..', '..', file)).byteLength;
    expect(bytes).toBeLessThan(inlineBytes(surface) / 4);
  });

  it('declares no response and no response body twice inline, and names no component it does not use', () => {
    const document = committed(file);
    const { responses, bodies } = responsesOf(document);
    expect(repeatedInline(responses)).toEqual([]);
    expect(repeatedInline(bodies)).toEqual([]);
    const text = JSON.stringify(document);
    for (const kind of ['responses', 'schemas', 'parameters', 'headers'] as const) {
      for (const name of Object.keys(document.components[kind] ?? {})) expect(text, `${kind}/${name}`).toContain(`"#/components/${kind}/${name}"`);
    }
  });
});

describe('compactOpenApiDocument', () => {
  it('leaves its argument as it was', () => {
    const built = buildOpenApiDocument(OPENAPI_SURFACES[0]);
    const before = canonicalJson(built);
    compactOpenApiDocument(built);
    expect(canonicalJson(built)).toBe(before);
  });
});

describe('formatJson', () => {
  const sample = {
    short: { $ref: '#/components/headers/X-Request-Id' },
    list: ['a', 'b'],
    empty: { object: {}, array: [] },
    text: 'brackets [ ] and { } and "quotes", a line\nbreak and ünïcode',
    long: Array.from({ length: 30 }, (_, n) => `ENTRY_NUMBER_${n}`),
    deep: { a: { b: { c: { d: [1, 2.5, -3, null, true, false] } } } },
  };

  it('writes JSON that reads back as the value, keys in their order', () => {
    const text = formatJson(sample);
    expect(JSON.parse(text)).toEqual(sample);
    expect(Object.keys(JSON.parse(text) as Json)).toEqual(Object.keys(sample));
  });

  it('keeps a value on one line when it fits in 170 characters, fills a long list of plain values, and breaks what does not', () => {
    const lines = formatJson(sample).split('\n');
    expect(lines).toContain('  "short": {"$ref": "#/components/headers/X-Request-Id"},');
    expect(lines).toContain('  "list": ["a", "b"],');
    const entries = lines.filter((line) => line.includes('ENTRY_NUMBER_'));
    expect(entries.length).toBeGreaterThan(1);
    expect(entries.length).toBeLessThan(30);
    expect(entries.join(' ').match(/ENTRY_NUMBER_/g)).toHaveLength(30);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(170);
  });

  it('opens and closes a chain of one-entry objects on one line, indenting what it wraps once', () => {
    const wide = { content: { 'application/json': { schema: { type: 'object', description: 'x'.repeat(160), required: ['a'] } } } };
    const text = formatJson(wide);
    expect(JSON.parse(text)).toEqual(wide);
    expect(text.split('\n')).toEqual([
      '{"content": {"application/json": {"schema": {',
      '  "type": "object",',
      `  "description": "${'x'.repeat(160)}",`,
      '  "required": ["a"]',
      '}}}}',
      '',
    ]);
  });
});
