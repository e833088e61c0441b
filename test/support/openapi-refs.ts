/**
 * The committed OpenAPI documents name what repeats once (scripts/openapi-compact.ts): a response, a parameter or a
 * schema may be a local `$ref`. The tests that read the documents follow it to where it is declared.
 */
type Json = Record<string, any>;

/** Where `value` (found at `at`) is declared in `document`: the `#/…` pointer it refers to, followed; or itself. */
export function followRef(document: Json, value: Json, at: readonly string[] = []): { at: string[]; value: Json } {
  const pointer = typeof value.$ref === 'string' && value.$ref.startsWith('#/') ? (value.$ref as string) : undefined;
  if (!pointer) return { at: [...at], value };
  const segments = pointer.slice(2).split('/').map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  const target = segments.reduce<Json | undefined>((node, segment) => node?.[segment] as Json | undefined, document);
  if (!target) throw new Error(`${pointer} names nothing in the document`);
  return followRef(document, target, segments);
}
