/**
 * Normalized view of an API Gateway REST (v1 payload) proxy event: header
 * names lowercased with every value kept, query parameters with every value
 * kept, and the body as bytes. Everything downstream reads this, never the
 * raw event.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';

export interface ApiEvent {
  readonly method: string;
  /** Path below the stage, e.g. `/me`. */
  readonly path: string;
  /** Path as the client addressed it, stage included, e.g. `/v1/me`. */
  readonly fullPath: string;
  readonly resource: string;
  readonly headers: ReadonlyMap<string, readonly string[]>;
  readonly query: ReadonlyMap<string, readonly string[]>;
  readonly pathParameters: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
  readonly requestId: string;
  readonly sourceIp: string | undefined;
}

export function normalizeEvent(event: APIGatewayProxyEvent): ApiEvent {
  const headers = new Map<string, string[]>();
  const addHeader = (name: string, value: string | undefined) => {
    if (value === undefined) return;
    const key = name.toLowerCase();
    headers.set(key, [...(headers.get(key) ?? []), value]);
  };
  if (event.multiValueHeaders) {
    for (const [name, values] of Object.entries(event.multiValueHeaders)) for (const v of values ?? []) addHeader(name, v);
  } else if (event.headers) {
    for (const [name, value] of Object.entries(event.headers)) addHeader(name, value);
  }

  const query = new Map<string, string[]>();
  if (event.multiValueQueryStringParameters) {
    for (const [name, values] of Object.entries(event.multiValueQueryStringParameters)) query.set(name, [...(values ?? [])]);
  } else if (event.queryStringParameters) {
    for (const [name, value] of Object.entries(event.queryStringParameters)) query.set(name, [value ?? '']);
  }

  const body =
    event.body === null || event.body === undefined
      ? undefined
      : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');

  const pathParameters: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.pathParameters ?? {})) if (value !== undefined) pathParameters[name] = value;

  return {
    method: event.httpMethod,
    path: event.path,
    fullPath: event.requestContext?.path ?? event.path,
    resource: event.resource,
    headers,
    query,
    pathParameters,
    body,
    requestId: event.requestContext?.requestId ?? 'unknown',
    sourceIp: event.requestContext?.identity?.sourceIp,
  };
}

export function header(event: ApiEvent, name: string): string | undefined {
  return event.headers.get(name)?.[0];
}

/**
 * A lower bound of the query string's length as the client sent it. API
 * Gateway passes only decoded parameters, and decoding never lengthens a
 * string (`%3A` → `:`, `+` → space), so the decoded names and values joined
 * by `=` and `&` are never longer than the raw query: a request within the
 * limit is never refused here. The exact raw limit is WAF's size rule at the
 * edge (and the local front's mirror of it).
 */
export function queryStringLength(event: ApiEvent): number {
  let length = 0;
  let first = true;
  for (const [name, values] of event.query) {
    for (const value of values) {
      length += (first ? 0 : 1) + name.length + (value === '' ? 0 : 1 + value.length);
      first = false;
    }
  }
  return length;
}
