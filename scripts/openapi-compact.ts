/**
 * The committed form of an OpenAPI document: what the builder (scripts/openapi-document.ts) writes inline on every
 * operation, named once and referenced — the same contract, a document a person can review.
 *
 * - A response body schema that two or more responses carry (an error body with its codes, a success envelope)
 *   moves to `components.schemas`;
 * - then a response object that two or more operations declare (most error statuses: the same codes, headers and
 *   body on every operation of a kind) moves to `components.responses`.
 *
 * Only identical subtrees are replaced by a `$ref`, so the document dereferenced is the builder's
 * (test/unit/contract/openapi-compact.test.ts compares them). Names say what they hold: a response by its status and,
 * where one status has several, its codes (`UnprocessableContent.DUPLICATE_PARAMETER.UNKNOWN_PARAMETER`); an error body
 * by its codes (`Error.INVALID_API_KEY`); a success envelope by its data (`Envelope.Invitation`).
 *
 * formatJson writes it with two-space indentation, keeping a value (a header reference, a short schema) on one line
 * when it fits in 170 characters, the code's own 99th percentile, as code formatters do; a chain of one-entry objects (`"content":
 * {"application/json": {"schema": {…}}}`) opens and closes on one line, and a long list of plain values (an enum) fills
 * its lines.
 */

type Json = Record<string, unknown>;

const STATUS_NAMES: Readonly<Record<string, string>> = {
  '200': 'Ok',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'NoContent',
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '405': 'MethodNotAllowed',
  '406': 'NotAcceptable',
  '408': 'RequestTimeout',
  '409': 'Conflict',
  '410': 'Gone',
  '411': 'LengthRequired',
  '413': 'ContentTooLarge',
  '414': 'UriTooLong',
  '415': 'UnsupportedMediaType',
  '422': 'UnprocessableContent',
  '429': 'TooManyRequests',
  '431': 'RequestHeaderFieldsTooLarge',
  '500': 'InternalServerError',
  '502': 'BadGateway',
  '503': 'ServiceUnavailable',
  '504': 'GatewayTimeout',
};

/** A stable text of a JSON value: keys sorted, so two equal subtrees written in different orders match. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

interface ResponseSite {
  readonly operationId: string;
  readonly status: string;
  readonly holder: Json;
}

/** Every response of every operation, in document order, with what holds it (to replace it by a reference). */
function responseSites(document: Json): ResponseSite[] {
  const sites: ResponseSite[] = [];
  for (const item of Object.values(document.paths as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(item)) {
      const responses = operation.responses as Json | undefined;
      for (const status of Object.keys(responses ?? {})) sites.push({ operationId: String(operation.operationId), status, holder: responses as Json });
    }
  }
  return sites;
}

/** The error codes a body schema answers (an error body, or several of them as `anyOf`), sorted; empty for another schema. */
function codesOf(schema: Json): string[] {
  const properties = schema.properties as Record<string, Json> | undefined;
  const own = (properties?.code?.enum ?? ((properties?.error?.properties as Record<string, Json> | undefined)?.code?.enum as unknown)) as string[] | undefined;
  const nested = ((schema.anyOf as Json[] | undefined) ?? []).flatMap(codesOf);
  return [...new Set([...(own ?? []), ...nested])].sort();
}

/** The name of the component a data reference points at (`Invitation` for `#/components/schemas/Invitation`). */
const refName = (value: unknown) => ((value as Json | undefined)?.$ref as string | undefined)?.split('/').pop();

function uniqueName(wanted: string, taken: Set<string>): string {
  let name = wanted;
  for (let n = 2; taken.has(name); n += 1) name = `${wanted}.${n}`;
  taken.add(name);
  return name;
}

/** A subschema this large (its JSON, compact), repeated, is named once: a date-time with its pattern, a shared enum. */
const SUBSCHEMA_MIN_LENGTH = 80;

/** `scopes` → `scope`: what one element of a list under that key is called. */
const singular = (key: string) => (key.length > 3 && key.endsWith('s') && !key.endsWith('ss') ? key.slice(0, -1) : key);

/**
 * A hoisted field's name: its key, or for a bare `id` the thing its description says it identifies (`Invitation id
 * (uuid)…` → `InvitationId`), since `Id` alone names nothing.
 */
function fieldName(key: string, schema: Json): string {
  const owner = key === 'id' && typeof schema.description === 'string' ? /^([A-Za-z]+) id\b/i.exec(schema.description)?.[1] : undefined;
  return pascal(owner ? `${owner}_${key}` : key) || 'Shared';
}

const pascal = (text: string) => text.split(/[^A-Za-z0-9]+/).filter(Boolean).map((word) => word[0].toUpperCase() + word.slice(1)).join('');

/**
 * Large subschemas repeated inside the named schemas and the response bodies → components.schemas, named by their
 * format (`DateTime`) or by the property they first appear under (`ArchivedAt`). Request bodies and parameters stay as
 * the builder wrote them.
 */
function hoistSubschemas(document: Json, sites: readonly ResponseSite[]): void {
  const schemas = ((document.components as Json).schemas ??= {}) as Record<string, Json>;
  // Error bodies are named whole, by their codes: their parts stay in them.
  const roots: Json[] = [
    ...Object.entries(schemas)
      .filter(([name]) => !/^(Error\.|GatewayError)/.test(name))
      .map(([, schema]) => schema),
    ...sites.flatMap((site) => Object.values(((site.holder[site.status] as Json).content as Record<string, Json> | undefined) ?? {})),
  ];
  // Count every large subschema below a root (the roots themselves are named already, or are response bodies).
  const uses = new Map<string, { count: number; key: string; schema: Json }>();
  // Only what sits under a property (a field's schema, and what its anyOf or items hold): an anyOf of whole error bodies
  // is the body hoisting's to name.
  const visit = (node: unknown, key: string | undefined): void => {
    if (Array.isArray(node)) for (const element of node) visit(element, key);
    else if (node !== null && typeof node === 'object') {
      for (const [child, value] of Object.entries(node as Json)) {
        if (child === 'properties') for (const [property, schema] of Object.entries(value as Json)) tally(schema, property);
        // A list's element is named as one of the list (`scopes` → `Scope`).
        else if (child === 'items' && key !== undefined && value !== null && typeof value === 'object' && !Array.isArray(value)) tally(value, singular(key));
        else if (key !== undefined && value !== null && typeof value === 'object') {
          for (const element of Array.isArray(value) ? value : [value]) tally(element, key);
        } else visit(value, key);
      }
    }
  };
  const tally = (schema: unknown, key: string): void => {
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
    const text = canonicalJson(schema);
    if (!('$ref' in schema) && text.length >= SUBSCHEMA_MIN_LENGTH) {
      const seen = uses.get(text);
      uses.set(text, { count: (seen?.count ?? 0) + 1, key: seen?.key ?? key, schema: seen?.schema ?? (schema as Json) });
    }
    visit(schema, key);
  };
  for (const root of roots) visit(root, undefined);
  const taken = new Set(Object.keys(schemas));
  const names = new Map<string, string>();
  // Smallest first, so that a field's plain schema takes the plain name and its nullable form the `OrNull` one.
  for (const [text, { count, key, schema }] of [...uses].sort(([a], [b]) => a.length - b.length)) {
    if (count < 2) continue;
    const nullable = ((schema.anyOf as Json[] | undefined) ?? []).some((member) => member.type === 'null');
    const base = schema.description === undefined && typeof schema.format === 'string' ? pascal(schema.format) : fieldName(key, schema);
    names.set(text, uniqueName(`${base}${nullable ? 'OrNull' : ''}`, taken));
  }
  // Replace, outermost first: a named subschema's own copy is rewritten the same way.
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const name = '$ref' in (node as Json) ? undefined : names.get(canonicalJson(node));
    if (name) return { $ref: `#/components/schemas/${name}` };
    return Object.fromEntries(Object.entries(node as Json).map(([child, value]) => [child, rewrite(value)]));
  };
  const rewriteBelow = (root: Json): Json => Object.fromEntries(Object.entries(root).map(([child, value]) => [child, rewrite(value)]));
  for (const [name, root] of Object.entries(schemas)) if (!/^(Error\.|GatewayError)/.test(name)) schemas[name] = rewriteBelow(root);
  for (const site of sites) {
    const content = (site.holder[site.status] as Json).content as Record<string, Json> | undefined;
    for (const media of Object.values(content ?? {})) if (media.schema) media.schema = rewriteBelow(media.schema as Json);
  }
  for (const [text, name] of names) schemas[name] = rewriteBelow(uses.get(text)!.schema);
}

/**
 * Names for responses (or their error bodies) by status: the status's name alone where it has one entry; else also the
 * codes an entry adds to those every entry of its status answers (`BadRequest.INVALID_JSON`), or its fallback.
 */
function statusNames(entries: readonly { status: string; codes: readonly string[]; fallback: string }[]): string[] {
  return entries.map((entry) => {
    const variants = entries.filter((other) => other.status === entry.status);
    const status = STATUS_NAMES[entry.status] ?? `Status${entry.status}`;
    if (variants.length === 1) return status;
    const added = entry.codes.filter((code) => !variants.every((other) => other.codes.includes(code)));
    return [status, ...(entry.codes.length > 0 ? added : [entry.fallback])].join('.');
  });
}

/** Repeated inline response body schemas → components.schemas. */
function hoistBodies(document: Json, sites: readonly ResponseSite[]): Set<string> {
  const schemas = ((document.components as Json).schemas ??= {}) as Record<string, Json>;
  const bodies: { content: Json; key: string; status: string; operationId: string }[] = [];
  for (const site of sites) {
    const content = (site.holder[site.status] as Json).content as Record<string, Json> | undefined;
    for (const media of Object.values(content ?? {})) {
      const schema = media.schema as Json | undefined;
      if (!schema || '$ref' in schema) continue;
      bodies.push({ content: media, key: canonicalJson(schema), status: site.status, operationId: site.operationId });
    }
  }
  const uses = new Map<string, number>();
  for (const body of bodies) uses.set(body.key, (uses.get(body.key) ?? 0) + 1);
  const repeated = [...new Map(bodies.filter((body) => (uses.get(body.key) ?? 0) >= 2).map((body) => [body.key, body])).values()];
  const errors = repeated.filter((body) => codesOf(body.content.schema as Json).length > 0);
  const errorNames = statusNames(errors.map((body) => ({ status: body.status, codes: codesOf(body.content.schema as Json), fallback: body.operationId })));
  const taken = new Set(Object.keys(schemas));
  const named = new Map<string, string>();
  for (const body of repeated) {
    const schema = body.content.schema as Json;
    const error = errors.indexOf(body);
    const data = refName((schema.properties as Record<string, Json> | undefined)?.data);
    const name = uniqueName(error >= 0 ? `Error.${errorNames[error]}` : data ? `Envelope.${data}` : `${pascal(body.operationId)}Result`, taken);
    named.set(body.key, name);
    schemas[name] = schema;
  }
  for (const body of bodies) {
    const name = named.get(body.key);
    if (name) body.content.schema = { $ref: `#/components/schemas/${name}` };
  }
  return new Set(named.values());
}

/** A body named by hoistBodies that the response hoisting left with one reference is put back where it is used. */
function inlineSingleUse(document: Json, hoisted: ReadonlySet<string>): void {
  const schemas = (document.components as Json).schemas as Record<string, Json>;
  const counts = new Map<string, number>();
  const count = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(count);
    else if (node !== null && typeof node === 'object') {
      const name = refName(node);
      if (name !== undefined) counts.set(name, (counts.get(name) ?? 0) + 1);
      Object.values(node as Json).forEach(count);
    }
  };
  count(document);
  const single = new Map([...hoisted].filter((name) => counts.get(name) === 1).map((name) => [name, schemas[name]]));
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (node === null || typeof node !== 'object') return node;
    const name = refName(node);
    if (name !== undefined && single.has(name) && (node as Json).$ref === `#/components/schemas/${name}`) return single.get(name);
    return Object.fromEntries(Object.entries(node as Json).map(([key, value]) => [key, inline(value)]));
  };
  for (const name of single.keys()) delete schemas[name];
  Object.assign(document, inline(document));
}

/**
 * Response objects two or more operations declare → components.responses, named by their status; where one status has
 * several, each also by the codes it adds to those every one of them answers (`BadRequest.INVALID_JSON`).
 */
function hoistResponses(document: Json, sites: readonly ResponseSite[]): void {
  const schemas = (document.components as Json).schemas as Record<string, Json>;
  const groups = new Map<string, ResponseSite[]>();
  for (const site of sites) {
    const key = canonicalJson(site.holder[site.status]);
    groups.set(key, [...(groups.get(key) ?? []), site]);
  }
  const shared = [...groups.values()].filter((group) => group.length >= 2).map((group) => {
    const [first] = group;
    const response = first.holder[first.status] as Json;
    const body = Object.values((response.content as Record<string, Json> | undefined) ?? {})[0]?.schema as Json | undefined;
    const named = refName(body);
    const codes = body ? codesOf(named && schemas[named] ? schemas[named] : body) : [];
    return { group, response, status: first.status, codes, detail: named ?? first.operationId };
  });
  const names = statusNames(shared.map((entry) => ({ status: entry.status, codes: entry.codes, fallback: entry.detail })));
  const taken = new Set<string>(Object.keys(((document.components as Json).responses as Json | undefined) ?? {}));
  const responses: Record<string, Json> = {};
  shared.forEach((entry, index) => {
    const name = uniqueName(names[index], taken);
    responses[name] = entry.response;
    for (const site of entry.group) site.holder[site.status] = { $ref: `#/components/responses/${name}` };
  });
  const all = { ...((document.components as Json).responses as Record<string, Json> | undefined), ...responses };
  if (Object.keys(all).length > 0) (document.components as Json).responses = all;
}

/** Parameters two or more operations declare alike (a path's `partner_id`, a list's `page`) → components.parameters, by name. */
function hoistParameters(document: Json): void {
  const components = document.components as Json;
  const parameters = (components.parameters ?? {}) as Record<string, Json>;
  const lists = Object.values(document.paths as Record<string, Record<string, Json>>).flatMap((item) =>
    Object.values(item).flatMap((operation) => (Array.isArray(operation.parameters) ? [operation.parameters as Json[]] : [])),
  );
  const uses = new Map<string, number>();
  for (const list of lists) for (const parameter of list) if (!('$ref' in parameter)) uses.set(canonicalJson(parameter), (uses.get(canonicalJson(parameter)) ?? 0) + 1);
  const taken = new Set(Object.keys(parameters));
  const names = new Map<string, string>();
  for (const list of lists) {
    list.forEach((parameter, index) => {
      const key = canonicalJson(parameter);
      if ('$ref' in parameter || (uses.get(key) ?? 0) < 2) return;
      let name = names.get(key);
      if (!name) {
        name = uniqueName(String(parameter.name), taken);
        names.set(key, name);
        parameters[name] = parameter;
      }
      list[index] = { $ref: `#/components/parameters/${name}` };
    });
  }
  if (Object.keys(parameters).length > 0) components.parameters = parameters;
}

/** The document with its repeated response bodies and responses named once (a deep copy: the argument is left as it is). */
export function compactOpenApiDocument(built: Json): Json {
  const document = structuredClone(built);
  const bodies = hoistBodies(document, responseSites(document));
  hoistSubschemas(document, responseSites(document));
  hoistResponses(document, responseSites(document));
  inlineSingleUse(document, bodies);
  hoistParameters(document);
  const components = document.components as Json;
  for (const kind of ['responses', 'schemas'] as const) {
    if (components[kind]) components[kind] = Object.fromEntries(Object.entries(components[kind] as Json).sort(([a], [b]) => a.localeCompare(b)));
  }
  // components in the order a reader looks them up: security, parameters, headers, responses, request bodies, schemas.
  const { securitySchemes, parameters, headers, responses, requestBodies, schemas, ...rest } = document.components as Json;
  document.components = Object.fromEntries(
    Object.entries({ securitySchemes, parameters, headers, responses, requestBodies, schemas, ...rest }).filter(([, value]) => value !== undefined),
  );
  return document;
}

/** JSON with two-space indentation, a value kept on one line when it fits in `width` characters. */
export function formatJson(value: unknown, width = 170): string {
  const defined = (item: Json) => Object.entries(item).filter(([, element]) => element !== undefined);
  const flat = (item: unknown): string => {
    if (Array.isArray(item)) return `[${item.map(flat).join(', ')}]`;
    if (item !== null && typeof item === 'object') return `{${defined(item as Json).map(([key, element]) => `${JSON.stringify(key)}: ${flat(element)}`).join(', ')}}`;
    return JSON.stringify(item) ?? 'null';
  };
  const write = (item: unknown, indent: number, lead: number): string => {
    const line = flat(item);
    if (item === null || typeof item !== 'object' || indent + lead + line.length <= width) return line;
    const inner = ' '.repeat(indent + 2);
    if (Array.isArray(item)) {
      if (item.length === 0) return '[]';
      // A long list of plain values (an enum, a `required` list) fills its lines, as prose does.
      if (item.every((element) => element === null || typeof element !== 'object')) {
        const lines: string[] = [];
        for (const element of item.map((value) => JSON.stringify(value) ?? 'null')) {
          const last = lines.length - 1;
          if (last >= 0 && inner.length + lines[last].length + 2 + element.length + 1 <= width) lines[last] += `, ${element}`;
          else lines.push(element);
        }
        return `[\n${lines.map((line) => `${inner}${line}`).join(',\n')}\n${' '.repeat(indent)}]`;
      }
      return `[\n${item.map((element) => `${inner}${write(element, indent + 2, 0)}`).join(',\n')}\n${' '.repeat(indent)}]`;
    }
    const entries = defined(item as Json);
    if (entries.length === 0) return '{}';
    // A chain of one-entry objects (`"content": {"application/json": {"schema": {…}}}`) opens on one line and closes
    // on one: what it wraps is indented once, not once per link.
    const [only] = entries;
    if (entries.length === 1 && only[1] !== null && typeof only[1] === 'object' && !Array.isArray(only[1])) {
      const label = `${JSON.stringify(only[0])}: `;
      return `{${label}${write(only[1], indent, lead + 1 + label.length)}}`;
    }
    return `{\n${entries
      .map(([key, element]) => {
        const label = `${JSON.stringify(key)}: `;
        return `${inner}${label}${write(element, indent + 2, label.length)}`;
      })
      .join(',\n')}\n${' '.repeat(indent)}}`;
  };
  return `${write(value, 0, 0)}\n`;
}
