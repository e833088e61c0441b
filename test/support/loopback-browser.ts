/**
 * A browser of web settings for the sign-in tests: its own loopback source address (the sign-in limits count by
 * source IP: 127.0.0.2, 127.0.0.3, … are other clients to the local front), and a cookie jar that keeps every cookie
 * the API sets with its Path and sends each only to the paths it covers, as a browser does (the session cookie to
 * `/v1/settings…`, the device cookie `settings_device` to `/v1/settings/api/session` only). It sends what the settings
 * page sends (its Origin, `X-Settings-Request: 1`, JSON bodies), and every answer is checked against the OpenAPI
 * document, as `stack.call` does.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import { checkResponse } from './contract-check';

export interface JarCookie {
  readonly value: string;
  readonly path: string;
  /** The Set-Cookie that set it, as it came. */
  readonly setCookie: string;
}

/** Whether a cookie of `cookiePath` goes with a request to `requestPath` (RFC 6265 5.1.4). */
const pathMatches = (requestPath: string, cookiePath: string) =>
  requestPath === cookiePath || (requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/'));

export class LoopbackBrowser {
  /** By cookie name: what the API set and the browser still holds. */
  readonly jar = new Map<string, JarCookie>();

  constructor(
    private readonly baseUrl: string,
    readonly localAddress = '127.0.0.1',
  ) {}

  signIn(email: string, password: string, twoFactorCode?: string): Promise<Response> {
    return this.send('POST', '/settings/api/session', { email, password, ...(twoFactorCode === undefined ? {} : { two_factor_code: twoFactorCode }) });
  }

  get(path: string): Promise<Response> {
    return this.send('GET', path);
  }

  /** A cookie put in the jar by hand (one another site planted, or a forged one), sent where its path says. */
  plant(name: string, value: string, path: string): void {
    this.jar.set(name, { value, path, setCookie: `${name}=${value}; Path=${path}` });
  }

  async send(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Response> {
    const url = new URL(`${this.baseUrl}${path}`);
    const headers: Record<string, string> = {};
    if (method !== 'GET') {
      headers.Origin = url.origin;
      headers['X-Settings-Request'] = '1';
    }
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload !== undefined) headers['Content-Type'] = 'application/json';
    const cookies = [...this.jar].filter(([, cookie]) => pathMatches(url.pathname, cookie.path)).map(([name, cookie]) => `${name}=${cookie.value}`);
    if (cookies.length > 0) headers.Cookie = cookies.join('; ');
    const answer = await new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const req = request(url, { method, headers, localAddress: this.localAddress, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const one of [value ?? []].flat()) responseHeaders.append(name, one);
    }
    for (const setCookie of responseHeaders.getSetCookie()) this.keep(setCookie);
    const response = new Response(new Uint8Array(answer.body), { status: answer.status, headers: responseHeaders });
    await checkResponse(method, path, response);
    return response;
  }

  /** A Set-Cookie: kept under its name with its path; `Max-Age=0` removes it. */
  private keep(setCookie: string): void {
    const [pair, ...attributes] = setCookie.split(';').map((part) => part.trim());
    const at = pair.indexOf('=');
    const name = pair.slice(0, at);
    const attribute = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key.toLowerCase()}=`))?.split('=')[1];
    if (attribute('Max-Age') === '0') {
      this.jar.delete(name);
      return;
    }
    this.jar.set(name, { value: pair.slice(at + 1), path: attribute('Path') ?? '/', setCookie });
  }
}
