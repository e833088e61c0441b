/**
 * API Gateway REST (v1 payload) proxy events and Lambda contexts for unit
 * tests, shaped like the ones API Gateway sends: single- and multi-value
 * headers and query parameters side by side, the stage in
 * `requestContext.path` only, and `X-Forwarded-Proto: https` as API Gateway
 * adds it.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { callerIdentity } from '../../../local/caller-identity';

export const STAGE = 'v1';

export interface ProxyEventOptions {
  readonly method?: string;
  /** Path below the stage, e.g. `/me`. */
  readonly path?: string;
  /** Resource template API Gateway matched; defaults to `path`. */
  readonly resource?: string;
  /** Header values; an array sends the header several times. `undefined` leaves a default header out. */
  readonly headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Query parameter values; an array sends the parameter several times. */
  readonly query?: Readonly<Record<string, string | readonly string[]>>;
  readonly pathParameters?: Readonly<Record<string, string>>;
  /** A string is sent as text, a Buffer base64-encoded (as for binary media types). */
  readonly body?: string | Buffer;
  readonly requestId?: string;
}

const DEFAULT_HEADERS = {
  Host: 'api.example.com',
  'User-Agent': 'unit-test',
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-Port': '443',
} as const;

export function proxyEvent(options: ProxyEventOptions = {}): APIGatewayProxyEvent {
  const method = options.method ?? 'GET';
  const path = options.path ?? '/health';
  const resource = options.resource ?? path;
  const requestId = options.requestId ?? 'req-0001';

  // Built with Object.fromEntries, which defines own properties: a header named `__proto__` is a
  // header, as in the JSON event Lambda parses, not the object's prototype.
  const multiValueHeaders: Record<string, string[]> = Object.fromEntries(
    Object.entries<string | readonly string[] | undefined>({ ...DEFAULT_HEADERS, ...options.headers }).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, typeof value === 'string' ? [value] : [...value]]],
    ),
  );
  const headers = Object.fromEntries(Object.entries(multiValueHeaders).map(([k, v]) => [k, v[v.length - 1]]));

  const entries = Object.entries(options.query ?? {});
  const multiValueQueryStringParameters =
    entries.length === 0 ? null : Object.fromEntries(entries.map(([k, v]) => [k, typeof v === 'string' ? [v] : [...v]]));
  const queryStringParameters =
    multiValueQueryStringParameters === null
      ? null
      : Object.fromEntries(Object.entries(multiValueQueryStringParameters).map(([k, v]) => [k, v[v.length - 1]]));

  const isBase64Encoded = Buffer.isBuffer(options.body);
  const body = options.body === undefined ? null : isBase64Encoded ? (options.body as Buffer).toString('base64') : (options.body as string);

  return {
    resource,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters,
    multiValueQueryStringParameters,
    pathParameters: options.pathParameters ?? (resource === '/{proxy+}' ? { proxy: path.replace(/^\//, '') } : null),
    stageVariables: null,
    body,
    isBase64Encoded,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abcdef1234',
      authorizer: null,
      domainName: DEFAULT_HEADERS.Host,
      domainPrefix: 'api',
      extendedRequestId: requestId,
      httpMethod: method,
      identity: callerIdentity('203.0.113.7', DEFAULT_HEADERS['User-Agent']),
      path: `/${STAGE}${path}`,
      protocol: 'HTTP/1.1',
      requestId,
      requestTime: '01/Mar/2025:12:00:00 +0000',
      requestTimeEpoch: 1_740_830_400_000,
      resourceId: 'res123',
      resourcePath: resource,
      stage: STAGE,
    },
  };
}

export function lambdaContext(functionName = 'partner-api-test'): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: 'lambda-req-0001',
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'unit',
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Response body of a handler, parsed. */
export function parseBody(response: { body: string }): Record<string, unknown> {
  return JSON.parse(response.body) as Record<string, unknown>;
}
