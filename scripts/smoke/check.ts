/**
 * A smoke check: a name and a run that passes with a detail, skips with a
 * reason, or throws (CheckFailure with its problems, or any error, e.g. no
 * answer at all). Checks run in order and share a context: the identity
 * check records what GET /me said, for the checks that need the key's
 * organization and scopes.
 */
import type { SmokeOptions } from './options';
import { probe, probeAsSent, type Probe } from './probe';

export interface KeyIdentity {
  readonly partnerId?: string;
  readonly scopes: readonly string[];
}

export type CheckOutcome = { readonly status: 'pass' | 'skip'; readonly detail: string };

export interface SmokeCheck {
  readonly name: string;
  run(context: SmokeContext): Promise<CheckOutcome>;
}

export const pass = (detail: string): CheckOutcome => ({ status: 'pass', detail });
export const skip = (reason: string): CheckOutcome => ({ status: 'skip', detail: reason });

export interface RequestOptions {
  readonly method?: string;
  /** `true`: the run's key; a string: that Authorization header value as is; absent: no Authorization header. */
  readonly authorization?: true | string;
  readonly headers?: Readonly<Record<string, string>>;
}

export class SmokeContext {
  /** Set by the identity check when GET /me answered. */
  identity?: KeyIdentity;

  constructor(readonly options: SmokeOptions) {}

  /** A request to the partner API, relative to its base URL. */
  partner(path: string, request: RequestOptions = {}): Promise<Probe> {
    return this.send(this.options.baseUrl, path, request);
  }

  /** A request to the web side, relative to its base URL (only when one was given). */
  web(path: string, request: RequestOptions = {}): Promise<Probe> {
    if (!this.options.webBaseUrl) throw new Error('no --web-base-url given');
    return this.send(this.options.webBaseUrl, path, request);
  }

  /** A request to the web side whose path is sent exactly as written (dot segments, repeated slashes), with an optional body. */
  webAsSent(path: string, request: RequestOptions & { readonly body?: string } = {}): Promise<Probe> {
    if (!this.options.webBaseUrl) throw new Error('no --web-base-url given');
    return probeAsSent(this.options.webBaseUrl, path, { method: request.method, timeoutMs: this.options.timeoutMs, headers: { ...request.headers }, body: request.body });
  }

  private send(baseUrl: string, path: string, request: RequestOptions): Promise<Probe> {
    const authorization = request.authorization === true ? `Bearer ${this.options.key}` : request.authorization;
    return probe(baseUrl, path, {
      method: request.method,
      timeoutMs: this.options.timeoutMs,
      headers: { ...request.headers, ...(authorization !== undefined ? { Authorization: authorization } : {}) },
    });
  }
}
