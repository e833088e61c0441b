/**
 * The local stand-in for API Gateway: an HTTP server on loopback that turns
 * each request into a REST API (v1 payload) proxy event, exactly as API
 * Gateway would build it for the `v1` stage, routes it with the service's own
 * route table and calls the very handler the stack deploys for that route's
 * group. Paths and methods no route declares go to the fallback group, as
 * the deployed API's `{proxy+}` and ANY methods do.
 *
 * What API Gateway and WAF do around the Lambda, the front mirrors where it
 * matters for the spec: WAF's rules on the raw request (local/waf-mirror.ts),
 * the raw request target routed without normalization, the 5-second body
 * read deadline (408), refusing to buffer more than the body limit, Lambda's
 * function timeout (502), and an error body even for requests Node cannot
 * parse (DEFAULT_4XX's REQUEST_REJECTED). Each answer the front gives itself
 * has the shape its deployed counterpart gives the path addressed
 * (frontErrorResponse). TLS is terminated here as at API
 * Gateway: the front adds `X-Forwarded-Proto: https` unless an upstream proxy
 * in front of it already said how the client connected.
 */
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { errorResponse } from '../lambdas/shared/http/envelope';
import { ApiError } from '../lambdas/shared/errors';
import type { ApiHandler } from '../lambdas/shared/http/pipeline';
import { REQUEST_LIMITS } from '../lambdas/shared/http/request-rules';
import { FALLBACK_GROUPS, FALLBACK_RESOURCE, surfaceOfPath, type Router } from '../lambdas/shared/http/routes';
import { defaultRouter } from '../lambdas/service/routes';
import { frontAnswerShape, type FrontResponder } from '../lib/config/front-answers';
import { resolveStageConfig } from '../lib/config/stage-config';
import { errorBody } from '../lib/constructs/error-envelope';
import { callerIdentity } from './caller-identity';
import { RefusedRequestPaths } from './refused-request-path';
import { parseQuery, parseRequestTarget, type RequestTarget } from './request-target';
import { wafRequestRefusal } from './waf-mirror';

export const STAGE_NAME = 'v1';
export const BODY_READ_DEADLINE_MS = 5_000;
/** The functions' timeout in a deployed stage (any stage without overrides has the base config's). */
export const FUNCTION_TIMEOUT_MS = resolveStageConfig('local').lambda.timeoutSeconds * 1000;

/**
 * The invocation's answer, or `timeout` when it is not there before the
 * deadline its context's getRemainingTimeInMillis() counts down to: Lambda
 * stops a function at that instant, so an answer that comes at or after it
 * (a handler that held the thread past it, say) is a timeout too.
 */
async function answerBeforeDeadline<T>(invocation: Promise<T>, deadline: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
  });
  try {
    const answer = await Promise.race([invocation, timedOut]);
    return Date.now() >= deadline ? 'timeout' : answer;
  } finally {
    clearTimeout(timer);
  }
}

export interface LocalFrontOptions {
  readonly handlers: Readonly<Record<string, ApiHandler>>;
  readonly router?: Router;
  readonly port?: number;
  readonly host?: string;
  /** Checks that run before the event is built (the edge protection's local counterpart). */
  readonly edge?: (request: IncomingMessage) => APIGatewayProxyResult | undefined | Promise<APIGatewayProxyResult | undefined>;
  readonly bodyReadDeadlineMs?: number;
  /** The function timeout the front enforces, as Lambda does (default: the stage config's). */
  readonly functionTimeoutMs?: number;
}

export interface LocalFront {
  readonly server: Server;
  readonly baseUrl: string;
  close(): Promise<void>;
}

interface ReadBody {
  readonly bytes: Buffer;
  readonly truncated: boolean;
}

/** Read at most limit+1 bytes: enough for the handler to see the body is too large, never an unbounded buffer. */
function readBody(request: IncomingMessage, deadlineMs: number): Promise<ReadBody | 'timeout'> {
  const cap = REQUEST_LIMITS.bodyBytes + 1;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => finish('timeout'), deadlineMs);
    const finish = (result: ReadBody | 'timeout') => {
      clearTimeout(timer);
      request.removeAllListeners('data');
      resolve(result);
    };
    request.on('data', (chunk: Buffer) => {
      const room = cap - size;
      chunks.push(chunk.subarray(0, room));
      size += Math.min(chunk.length, room);
      if (size >= cap) {
        request.pause();
        finish({ bytes: Buffer.concat(chunks), truncated: true });
      }
    });
    request.on('end', () => finish({ bytes: Buffer.concat(chunks), truncated: false }));
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** A raw request path against the stage: whether it is under `/v1`, and the path below the stage (or the raw path when not under it). */
export function stagePathOf(rawTargetPath: string): { inStage: boolean; path: string; rawPath: string } {
  const rawPath = rawTargetPath.startsWith('/') ? rawTargetPath : `/${rawTargetPath}`;
  const stagePrefix = `/${STAGE_NAME}`;
  const inStage = rawPath === stagePrefix || rawPath.startsWith(`${stagePrefix}/`);
  return { inStage, path: inStage ? rawPath.slice(stagePrefix.length) || '/' : rawPath, rawPath };
}

export function buildProxyEvent(args: {
  request: IncomingMessage;
  router: Router;
  body: Buffer;
  requestId: string;
  target?: RequestTarget;
}): { event: APIGatewayProxyEvent; group: string } {
  const { request, router, body, requestId } = args;
  // The raw path, routed as API Gateway routes it: no `..`, `\` or `//` normalization.
  const target = args.target ?? parseRequestTarget(request.url ?? '/');
  const { inStage, path, rawPath } = stagePathOf(target.path);
  const method = (request.method ?? 'GET').toUpperCase();

  const match = inStage ? router.match(method, path) : undefined;
  const resource = match ? match.route.path : FALLBACK_RESOURCE;
  // An unknown path reaches the fallback function of the REST API (surface) it would have reached in AWS.
  const group = match ? match.route.group : FALLBACK_GROUPS[surfaceOfPath(path)];
  const pathParameters = match ? match.pathParameters : { proxy: path.replace(/^\//, '') };

  // Prototype-free: header names are the client's (`__proto__`, `constructor`, …).
  const multiValueHeaders: Record<string, string[]> = Object.create(null);
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i];
    (multiValueHeaders[name] ??= []).push(request.rawHeaders[i + 1]);
  }
  const has = (name: string) => Object.keys(multiValueHeaders).some((h) => h.toLowerCase() === name);
  const sourceIp = request.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1';
  // The headers API Gateway adds to every proxied request.
  if (!has('x-forwarded-proto')) multiValueHeaders['X-Forwarded-Proto'] = ['https'];
  multiValueHeaders['X-Forwarded-Port'] = ['443'];
  multiValueHeaders['X-Forwarded-For'] = [[...(multiValueHeaders['X-Forwarded-For'] ?? []), sourceIp].join(', ')];
  multiValueHeaders['X-Amzn-Trace-Id'] = [`Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)}`];
  const headers = lastValues(multiValueHeaders);

  const multiValueQueryStringParameters: Record<string, string[]> = Object.create(null);
  for (const [name, values] of parseQuery(target.query)) multiValueQueryStringParameters[name] = values;
  const hasQuery = Object.keys(multiValueQueryStringParameters).length > 0;

  const now = Date.now();
  const binary = body.length > 0 && !isUtf8(body);
  const event: APIGatewayProxyEvent = {
    resource,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? lastValues(multiValueQueryStringParameters) : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQueryStringParameters : null,
    pathParameters,
    stageVariables: null,
    // Text bodies arrive as strings; bytes that are not UTF-8 are passed base64-encoded so the handler sees them intact.
    body: body.length === 0 ? null : binary ? body.toString('base64') : body.toString('utf8'),
    isBase64Encoded: binary,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      domainName: request.headers.host ?? '127.0.0.1',
      domainPrefix: 'local',
      extendedRequestId: requestId,
      httpMethod: method,
      identity: callerIdentity(sourceIp, request.headers['user-agent'] ?? null),
      path: rawPath,
      protocol: `HTTP/${request.httpVersion}`,
      requestId,
      requestTime: new Date(now).toUTCString(),
      requestTimeEpoch: now,
      resourceId: 'local',
      resourcePath: resource,
      stage: STAGE_NAME,
    },
  };
  return { event, group };
}

/** The single-value view API Gateway sends beside the multi-value one: the last value of each name, prototype-free. */
function lastValues(multi: Record<string, string[]>): Record<string, string> {
  const single: Record<string, string> = Object.create(null);
  for (const name of Object.keys(multi)) single[name] = multi[name][multi[name].length - 1];
  return single;
}

function lambdaContext(group: string, requestId: string, deadline: number): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `partner-api-local-${group}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:partner-api-local-${group}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/partner-api-local-${group}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function send(response: ServerResponse, result: APIGatewayProxyResult, close = false): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  if (close) headers.Connection = 'close';
  const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  headers['Content-Length'] = String(body.length);
  response.writeHead(result.statusCode, headers);
  response.end(body);
}

/**
 * A request Node's HTTP parser refuses before the front sees it (a method it does not know, lower-case ones included,
 * bytes a request target or header may not hold, an empty header name, a header block over Node's limit, a malformed
 * length, bytes after a request that are no request) gets the error body API Gateway's DEFAULT_4XX gateway response gives
 * (REQUEST_REJECTED, with the status chosen for it; lib/constructs/surface-api.ts) and a request id, instead of Node's
 * bare status line: in the shape of the surface of the path it addressed (local/refused-request-path.ts), or, when no
 * path can be read, in the web side's body, which reads as both shapes (the envelope, and web settings' top-level code).
 */
function refuseUnparsableRequest(paths: RefusedRequestPaths, error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = PARSER_ERROR_STATUS[error.code ?? ''] ?? 400;
  const answer = frontErrorResponse(paths.pathOf(socket, error.rawPacket), randomUUID(), new ApiError('INTERNAL_ERROR'), { by: 'gateway', code: 'REQUEST_REJECTED', status });
  const head = Object.entries({ ...answer.headers, 'Content-Length': Buffer.byteLength(answer.body), Connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('')}\r\n${answer.body}`);
}

/**
 * An answer the front gives itself, as the deployed front door would give it to `path` (stage-relative): the headers
 * every response carries and the body in the shape its responder gives that path (frontAnswerShape,
 * lib/config/front-answers.ts; `errorBody`, lib/constructs/error-envelope.ts): the envelope on the partner API; on the
 * web side, the web ACL's answers (`edge`, the default: WAF's request rules and rate rules) in web settings' shape on a
 * settings path, API Gateway's (`gateway`: its gateway responses, the body deadline, a failed or timed-out function) in
 * the web side's one body, web settings' top-level code and message beside the envelope. A path that could not be read
 * (undefined) gets that web body, which both shapes read.
 */
export function frontErrorResponse(
  path: string | undefined,
  requestId: string,
  error: ApiError,
  answer: { by?: FrontResponder; code?: 'REQUEST_REJECTED'; status?: number } = {},
): APIGatewayProxyResult {
  const response = errorResponse(requestId, error);
  const shape = path === undefined ? 'web' : frontAnswerShape(answer.by ?? 'edge', path);
  return { ...response, statusCode: answer.status ?? response.statusCode, body: errorBody(shape, answer.code ?? error.code, requestId, answer.code ? undefined : error.message) };
}

/** The statuses Node itself gives these parser errors; any other is 400 (all answered as REQUEST_REJECTED). */
export const PARSER_ERROR_STATUS: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/** The stage-relative path of a request Node parsed (`/` when its target is unusable). */
function pathOrRoot(url: string | undefined): string {
  try {
    return stagePathOf(parseRequestTarget(url ?? '/').path).path;
  } catch {
    return '/';
  }
}

export async function startLocalFront(options: LocalFrontOptions): Promise<LocalFront> {
  const router = options.router ?? defaultRouter;
  const deadlineMs = options.bodyReadDeadlineMs ?? BODY_READ_DEADLINE_MS;
  const functionTimeoutMs = options.functionTimeoutMs ?? FUNCTION_TIMEOUT_MS;

  const refusedPaths = new RefusedRequestPaths(pathOrRoot);
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const requestId = randomUUID();
    try {
      // WAF's request rules act first, on the raw request (lib/constructs/edge-protection.ts).
      const target = parseRequestTarget(request.url ?? '/');
      // Answers the front gives itself take the shape their deployed responder gives the path addressed.
      const stagePath = stagePathOf(target.path).path;
      // Bytes Node refuses after this request on its connection (a GET's body sent without a length) are its client's.
      refusedPaths.addressed(request.socket, stagePath);
      const refuse = (error: ApiError, by: FrontResponder) => frontErrorResponse(stagePath, requestId, error, { by });
      const refusal = wafRequestRefusal(target);
      if (refusal) {
        request.resume();
        return send(response, refuse(new ApiError(refusal), 'edge'));
      }
      const edgeAnswer = await options.edge?.(request);
      if (edgeAnswer) {
        request.resume();
        return send(response, edgeAnswer);
      }
      // A declared length over the limit is refused without waiting for the body, as the handler would refuse it.
      const declared = Number(request.headers['content-length'] ?? 0);
      const read = declared > REQUEST_LIMITS.bodyBytes ? { bytes: Buffer.alloc(0), truncated: true } : await readBody(request, deadlineMs);
      if (read === 'timeout') {
        return send(response, refuse(new ApiError('REQUEST_TIMEOUT'), 'gateway'), true);
      }
      const { event, group } = buildProxyEvent({ request, router, body: read.bytes, requestId, target });
      const handler = options.handlers[group];
      if (!handler) throw new Error(`No handler for group ${group}`);
      const deadline = Date.now() + functionTimeoutMs;
      const result = await answerBeforeDeadline(handler(event, lambdaContext(group, requestId, deadline)), deadline);
      if (result === 'timeout') {
        // Lambda stops a function at its timeout; API Gateway then answers 502 with no retry guidance.
        console.error(JSON.stringify({ level: 'error', message: 'local front: function timed out', request_id: requestId, timeout_ms: functionTimeoutMs }));
        return send(response, { ...refuse(new ApiError('INTERNAL_ERROR'), 'gateway'), statusCode: 502 }, true);
      }
      send(response, result, read.truncated);
    } catch (error) {
      // What API Gateway answers when the integration fails: never the error itself.
      console.error(JSON.stringify({ level: 'error', message: 'local front: integration failed', request_id: requestId, error: String(error) }));
      send(response, { ...frontErrorResponse(pathOrRoot(request.url), requestId, new ApiError('INTERNAL_ERROR'), { by: 'gateway' }), statusCode: 502 }, true);
    }
  };
  const server = createServer(handle);
  // An Expect header other than `100-continue` is not refused with a bare 417: the request is served.
  server.on('checkExpectation', handle);
  refusedPaths.watch(server);
  server.on('clientError', (error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex) => refuseUnparsableRequest(refusedPaths, error, socket));
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const baseUrl = `http://${options.host ?? '127.0.0.1'}:${address.port}/${STAGE_NAME}`;
  return {
    server,
    baseUrl,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
