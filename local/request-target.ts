/**
 * The request target as API Gateway sees it, parsed by hand rather than by
 * `new URL()`, which normalizes what API Gateway does not (`..` segments,
 * `\` and duplicate slashes) and so would route requests the deployed API
 * answers 404. The path is kept exactly as received (still percent-encoded);
 * query parameters are decoded as API Gateway decodes them for a REST proxy
 * event (`+` is a space, an invalid escape stays as it is), into
 * prototype-free maps: a client chooses these names.
 */
import { decodeLeniently } from '../lambdas/shared/http/request-rules';

export interface RequestTarget {
  /** Path as received, percent-encoding kept, e.g. `/v1/records/USS-…`. */
  readonly path: string;
  /** Raw query string without `?`; undefined when the target has none. */
  readonly query: string | undefined;
  /** Userinfo of an absolute-form target (`http://user@host/…`), if any. */
  readonly userinfo: string | undefined;
  /** A fragment sent in the target (clients normally strip it), if any. */
  readonly fragment: string | undefined;
}

export function parseRequestTarget(target: string): RequestTarget {
  let rest = target;
  let userinfo: string | undefined;
  const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(rest);
  if (absolute) {
    const authority = absolute[1];
    const at = authority.lastIndexOf('@');
    if (at >= 0) userinfo = authority.slice(0, at);
    rest = rest.slice(absolute[0].length) || '/';
  }
  const hash = rest.indexOf('#');
  const fragment = hash >= 0 ? rest.slice(hash + 1) : undefined;
  if (hash >= 0) rest = rest.slice(0, hash);
  const question = rest.indexOf('?');
  return {
    path: question >= 0 ? rest.slice(0, question) : rest,
    query: question >= 0 ? rest.slice(question + 1) : undefined,
    userinfo,
    fragment,
  };
}

/** Query parameters, every value kept in order, in a map no parameter name can reach into. */
export function parseQuery(raw: string | undefined): Map<string, string[]> {
  const parameters = new Map<string, string[]>();
  if (!raw) return parameters;
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decodeQueryComponent(equals >= 0 ? pair.slice(0, equals) : pair);
    const value = equals >= 0 ? decodeQueryComponent(pair.slice(equals + 1)) : '';
    parameters.set(name, [...(parameters.get(name) ?? []), value]);
  }
  return parameters;
}

const decodeQueryComponent = (text: string) => decodeLeniently(text.replace(/\+/g, ' '));
