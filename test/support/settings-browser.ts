/**
 * A browser's view of web settings for the integration tests: it keeps the
 * session cookie the API sets, and sends what the settings page sends (its
 * own Origin, `X-Settings-Request: 1`, JSON bodies), through `stack.call`
 * (so every response is checked against the documents).
 */
import type { TestStack } from './test-stack';

/** A response whose JSON body the tests read field by field. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export class SettingsBrowser {
  /** The `settings_session` cookie's value, when one is held. */
  token: string | undefined;

  constructor(
    private readonly stack: Pick<TestStack, 'call' | 'baseUrl'>,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  /** Keep (or drop) the session cookie a response sets. */
  take(response: Response): JsonResponse {
    const cookie = response.headers.get('set-cookie');
    const value = cookie ? /^settings_session=([^;]*)/.exec(cookie)?.[1] : undefined;
    if (value !== undefined) this.token = value === '' ? undefined : value;
    return response as unknown as JsonResponse;
  }

  signIn(email: string, password: string, twoFactorCode?: string): Promise<JsonResponse> {
    return this.post('/settings/api/session', { email, password, ...(twoFactorCode === undefined ? {} : { two_factor_code: twoFactorCode }) });
  }

  get(path: string): Promise<JsonResponse> {
    return this.send('GET', path);
  }

  post(path: string, body?: unknown): Promise<JsonResponse> {
    return body === undefined ? this.send('POST', path) : this.send('POST', path, JSON.stringify(body), 'application/json');
  }

  delete(path: string): Promise<JsonResponse> {
    return this.send('DELETE', path);
  }

  async send(method: string, path: string, body?: string, contentType?: string): Promise<JsonResponse> {
    const headers: Record<string, string> = { ...this.extraHeaders };
    if (method !== 'GET') {
      headers.Origin = new URL(this.stack.baseUrl).origin;
      headers['X-Settings-Request'] = '1';
    }
    if (contentType) headers['Content-Type'] = contentType;
    if (this.token) headers.Cookie = `settings_session=${this.token}`;
    return this.take(await this.stack.call(path, { method, headers, ...(body === undefined ? {} : { body }) }));
  }
}
