/**
 * The callback address rules of the spec ("Callback rules"): a complete HTTPS
 * URL of a public domain name on the default port 443. No HTTP or other
 * ports, no IP literals, no user or password, no fragment, no local or
 * reserved names, not the service's own domain.
 *
 * This is the first of two gates. It judges the text alone; whether the name
 * resolves to public addresses is checked at every delivery by the sender
 * (address-policy.ts, safe-sender.ts), because DNS can change at any time.
 *
 * The WHATWG URL parser is forgiving: it drops tabs and newlines, decodes
 * percent-escapes in the host, reads `2130706433`, `0x7f.1`, `0177.0.0.1`
 * and `127.1` as 127.0.0.1, and forgets an explicit `:443`, an empty `@` or a
 * bare `#`. So the rules look at both the parsed URL and the raw text of the
 * authority, and refuse anything whose raw spelling is not a plain host name.
 *
 * `allowLocal` exists for the local stack only (its test receivers listen on
 * loopback with a self-signed certificate): it admits exactly `127.0.0.1`
 * and `localhost`, on any port but the local stack's own (`ownLocalPorts`:
 * there the service itself answers, and the spec forbids its own domain),
 * with every other rule kept.
 */
import ipaddr from 'ipaddr.js';

export interface UrlPolicy {
  /** The service's own hosts: a callback may not be one of them or under one of them. */
  readonly forbiddenHosts: readonly string[];
  /** Local development only: accept https://127.0.0.1:<any port> and https://localhost:<any port>. */
  readonly allowLocal: boolean;
  /** With `allowLocal`: the ports the local stack itself serves on loopback (its front), refused as the service's own. */
  readonly ownLocalPorts?: readonly number[];
}

export type UrlCheck =
  | { readonly ok: true; readonly url: URL; readonly host: string; readonly port: number }
  | { readonly ok: false; readonly reason: 'INVALID_WEBHOOK_URL'; readonly detail: string };

export const MAX_URL_LENGTH = 2048;
const MAX_HOST_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
const DEFAULT_PORT = 443;

/** Hosts that local mode admits, besides the public names every mode admits. */
export const LOCAL_HOSTS: readonly string[] = ['127.0.0.1', 'localhost'];

/**
 * Names that never lead to a partner's server: special-use and private-use
 * top-level names (RFC 6761, 6762, 7686, 8375, 9476 and the de facto private
 * ones), and the documentation domains. A host equal to or under one is refused.
 */
const RESERVED_SUFFIXES: readonly string[] = [
  'localhost', 'local', 'localdomain', 'internal', 'intranet', 'lan', 'home', 'corp', 'private',
  'arpa', 'test', 'example', 'invalid', 'onion', 'alt',
  'example.com', 'example.net', 'example.org',
];

/** Cloud instance metadata names (most are also caught by the rules above; listed so the intent survives edits). */
const METADATA_NAMES: readonly string[] = [
  'metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal',
];

/** Whitespace (ASCII and Unicode), C0 and C1 controls, DEL, and the backslash WHATWG reads as a slash. */
const FORBIDDEN_CHARACTERS = /[\s\u0000-\u001f\u007f-\u009f\\]/u;
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const RAW_HOST_CHARACTERS = /^[^%[\]:@]+$/u;

const invalid = (detail: string): UrlCheck => ({ ok: false, reason: 'INVALID_WEBHOOK_URL', detail });

const isUnder = (host: string, suffix: string) => host === suffix || host.endsWith(`.${suffix}`);

const withoutTrailingDot = (host: string) => (host.endsWith('.') ? host.slice(0, -1) : host);

/** Check a callback URL against the spec's address rules; the normalized host (lowercase, no trailing dot) and port on success. */
export function checkWebhookUrl(raw: string, policy: UrlPolicy): UrlCheck {
  if (typeof raw !== 'string' || raw.length === 0) return invalid('empty');
  if (raw.length > MAX_URL_LENGTH) return invalid(`longer than ${MAX_URL_LENGTH} characters`);
  if (FORBIDDEN_CHARACTERS.test(raw)) return invalid('whitespace, control character or backslash');
  if (!/^https:\/\//i.test(raw)) return invalid('not an https:// URL');
  if (raw.includes('#')) return invalid('fragment');

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return invalid('not a URL');
  }
  if (url.protocol !== 'https:') return invalid('not an https:// URL');
  if (url.username !== '' || url.password !== '') return invalid('user or password');

  // The authority as written: WHATWG ends it at /, ? or # (a backslash was refused above).
  const authority = raw.slice('https://'.length).split(/[/?#]/, 1)[0];
  if (authority.includes('@')) return invalid('user or password');
  if (authority.startsWith('[')) return invalid('IP literal');
  const colon = authority.lastIndexOf(':');
  const rawHost = (colon === -1 ? authority : authority.slice(0, colon)).toLowerCase();
  const rawPort = colon === -1 ? undefined : authority.slice(colon + 1);
  if (rawHost === '' || !RAW_HOST_CHARACTERS.test(rawHost)) return invalid('host is not a plain name');

  const host = withoutTrailingDot(url.hostname.toLowerCase());
  const port = url.port === '' ? DEFAULT_PORT : Number(url.port);

  if (policy.allowLocal && LOCAL_HOSTS.includes(withoutTrailingDot(rawHost)) && LOCAL_HOSTS.includes(host)) {
    if ((policy.ownLocalPorts ?? []).includes(port)) return invalid("the service's own domain");
    return { ok: true, url, host, port };
  }

  if (rawPort !== undefined && rawPort !== String(DEFAULT_PORT)) return invalid('port other than 443');
  if (port !== DEFAULT_PORT) return invalid('port other than 443');
  if (host.startsWith('[') || ipaddr.isValid(host) || ipaddr.isValid(withoutTrailingDot(rawHost))) return invalid('IP literal');

  const nameProblem = domainNameProblem(host);
  if (nameProblem) return invalid(nameProblem);
  if (METADATA_NAMES.includes(host)) return invalid('instance metadata name');
  if (RESERVED_SUFFIXES.some((suffix) => isUnder(host, suffix))) return invalid('local or reserved name');
  const own = policy.forbiddenHosts.map((h) => withoutTrailingDot(h.trim().toLowerCase())).filter((h) => h !== '');
  if (own.some((suffix) => isUnder(host, suffix))) return invalid("the service's own domain");

  return { ok: true, url, host, port };
}

/** Why `host` (already lowercase, punycode, no trailing dot) is not a public DNS name of letters, digits and hyphens; undefined when it is. */
function domainNameProblem(host: string): string | undefined {
  if (host.length === 0 || host.length > MAX_HOST_LENGTH) return `host longer than ${MAX_HOST_LENGTH} characters`;
  const labels = host.split('.');
  if (labels.length < 2) return 'single-label name';
  for (const label of labels) {
    if (label.length === 0) return 'empty label';
    if (label.length > MAX_LABEL_LENGTH) return `label longer than ${MAX_LABEL_LENGTH} characters`;
    if (!LDH_LABEL.test(label)) return 'label is not letters, digits and inner hyphens';
  }
  if (/^\d+$/.test(labels[labels.length - 1])) return 'numeric top-level label';
  return undefined;
}
