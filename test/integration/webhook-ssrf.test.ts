/**
 * Server-side request forgery, as a table: every way a partner could point
 * a webhook at the service's own network (IP spellings, private and reserved
 * ranges behind a public-looking name, DNS rebinding, userinfo tricks, other
 * ports and schemes, fragments, local and own names) is refused with the
 * spec's reason, under the production rules (allowLocal: false), while a
 * live HTTPS receiver listens on loopback and must never see a request.
 * A connection watch proves more than the receiver can: no socket was even
 * opened for a refused case, and nothing ever left loopback.
 *
 * Redirects are the one case that does reach a receiver (local mode): the
 * 302 is the answer, and what it points to is never fetched.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWebhookSender, type SendFailure } from '../../lambdas/webhooks/destination/safe-sender';
import { startHttpsReceiver, watchOutgoingConnections, type ConnectionWatch, type HttpsReceiver } from '../support/https-receiver';

const POLICY = { allowLocal: false, forbiddenHosts: ['partner-api.screening-platform.io', 'screening-platform.io'] };
const PUBLIC_ADDRESS = '93.184.215.14';
const NAME = 'https://hooks.partner-hooks.net/in';

interface SsrfCase {
  readonly name: string;
  /** `{port}` is the live receiver's port. */
  readonly url: string;
  /** The resolver's answer per call (the last repeats); absent: the URL must be refused before any resolution. */
  readonly answers?: readonly (readonly string[])[];
  readonly reason: SendFailure;
  /** Addresses the sender may try to connect to (the watch cuts them); none unless said. */
  readonly connects?: readonly string[];
}

const url = (name: string, raw: string): SsrfCase => ({ name: `URL: ${name}`, url: raw, reason: 'INVALID_WEBHOOK_URL' });
const resolvedTo = (name: string, ...addresses: string[]): SsrfCase => ({
  name: `resolves to ${name}`,
  url: NAME,
  answers: [addresses],
  reason: 'UNSAFE_WEBHOOK_DESTINATION',
});

const CASES: readonly SsrfCase[] = [
  // IP literals, in every spelling the URL parser accepts
  url('loopback', 'https://127.0.0.1/'),
  url('loopback on the receiver port', 'https://127.0.0.1:{port}/hook'),
  url('decimal', 'https://2130706433/'),
  url('decimal on the receiver port', 'https://2130706433:{port}/hook'),
  url('hex', 'https://0x7f000001/'),
  url('hex dotted', 'https://0x7f.1/'),
  url('octal', 'https://0177.0.0.1/'),
  url('short', 'https://127.1/'),
  url('trailing dot', 'https://127.0.0.1./'),
  url('percent-encoded', 'https://%31%32%37.0.0.1/'),
  url('full-width digits', 'https://１２７.０.０.１/'),
  url('0.0.0.0', 'https://0.0.0.0/'),
  url('0', 'https://0/'),
  url('metadata IPv4', 'https://169.254.169.254/latest/meta-data/'),
  url('metadata IPv4 in decimal', 'https://2852039166/latest/meta-data/'),
  url('private IPv4', 'https://10.0.0.1/'),
  url('public IPv4 (still an IP literal)', 'https://93.184.215.14/'),
  url('IPv6 loopback', 'https://[::1]/'),
  url('IPv6 loopback on the receiver port', 'https://[::1]:{port}/hook'),
  url('IPv6 unspecified', 'https://[::]/'),
  url('IPv4-mapped, hex', 'https://[::ffff:7f00:1]/'),
  url('IPv4-mapped, dotted', 'https://[::ffff:127.0.0.1]/'),
  url('IPv4-mapped, written out', 'https://[0:0:0:0:0:ffff:127.0.0.1]/'),
  url('metadata IPv6', 'https://[fd00:ec2::254]/'),
  url('IPv6 zone id', 'https://[fe80::1%25eth0]/'),
  // userinfo
  url('user and password', 'https://user:pw@hooks.partner-hooks.net/in'),
  url('a name as userinfo', 'https://hooks.partner-hooks.net@evil-hooks.net/in'),
  url('userinfo before loopback', 'https://hooks.partner-hooks.net@127.0.0.1:{port}/hook'),
  url('empty userinfo', 'https://@hooks.partner-hooks.net/in'),
  url('backslash userinfo confusion', 'https://evil-hooks.net\\@hooks.partner-hooks.net/in'),
  // ports
  url('port 80', 'https://hooks.partner-hooks.net:80/in'),
  url('port 8443', 'https://hooks.partner-hooks.net:8443/in'),
  url('port 0', 'https://hooks.partner-hooks.net:0/in'),
  url('port 22', 'https://hooks.partner-hooks.net:22/in'),
  url('the receiver port', 'https://hooks.partner-hooks.net:{port}/in'),
  // schemes
  url('http', 'http://hooks.partner-hooks.net/in'),
  url('http to loopback', 'http://127.0.0.1:{port}/hook'),
  url('ftp', 'ftp://hooks.partner-hooks.net/in'),
  url('file', 'file:///etc/passwd'),
  url('gopher', 'gopher://hooks.partner-hooks.net:70/_'),
  url('https without slashes', 'https:hooks.partner-hooks.net/in'),
  // fragments
  url('fragment', 'https://hooks.partner-hooks.net/in#x'),
  url('bare #', 'https://hooks.partner-hooks.net/in#'),
  // local and reserved names
  url('localhost', 'https://localhost/'),
  url('localhost on the receiver port', 'https://localhost:{port}/hook'),
  url('localhost subdomain', 'https://hooks.localhost/'),
  url('.local', 'https://printer.local/'),
  url('.internal', 'https://ip-10-0-0-1.ec2.internal/'),
  url('GCP metadata', 'https://metadata.google.internal/computeMetadata/v1/'),
  url('EC2 metadata name', 'https://instance-data/latest/meta-data/'),
  url('single label', 'https://intranet/'),
  url('.home.arpa', 'https://nas.home.arpa/'),
  url('.test', 'https://hooks.test/'),
  url('example.com', 'https://example.com/'),
  url('whitespace smuggling', 'https://hooks.partner-hooks.net\t@127.0.0.1/'),
  // the service's own domain
  url('own API host', 'https://partner-api.screening-platform.io/v1/health'),
  url('own domain, other case and trailing dot', 'https://Web.Screening-Platform.IO./settings'),
  // public-looking names resolving to non-public addresses (IPv4)
  resolvedTo('loopback', '127.0.0.1'),
  resolvedTo('another loopback', '127.0.0.53'),
  resolvedTo('10/8', '10.1.2.3'),
  resolvedTo('172.16/12', '172.31.255.254'),
  resolvedTo('192.168/16', '192.168.1.1'),
  resolvedTo('link-local metadata', '169.254.169.254'),
  resolvedTo('carrier-grade NAT', '100.64.0.1'),
  resolvedTo('Alibaba metadata (CGNAT)', '100.100.100.200'),
  resolvedTo('Oracle metadata (192.0.0/24)', '192.0.0.192'),
  resolvedTo('0.0.0.0', '0.0.0.0'),
  resolvedTo('multicast', '224.0.0.251'),
  resolvedTo('broadcast', '255.255.255.255'),
  resolvedTo('reserved 240/4', '240.0.0.1'),
  resolvedTo('documentation', '192.0.2.10'),
  resolvedTo('documentation 2', '198.51.100.7'),
  resolvedTo('documentation 3', '203.0.113.9'),
  resolvedTo('benchmarking', '198.18.0.1'),
  // (IPv6)
  resolvedTo('IPv6 loopback', '::1'),
  resolvedTo('IPv6 unspecified', '::'),
  resolvedTo('IPv6 link-local', 'fe80::1'),
  resolvedTo('EC2 metadata IPv6', 'fd00:ec2::254'),
  resolvedTo('unique-local', 'fc00::1'),
  resolvedTo('site-local', 'fec0::1'),
  resolvedTo('IPv6 multicast', 'ff02::1'),
  resolvedTo('IPv6 documentation', '2001:db8::1'),
  resolvedTo('NAT64 of the metadata address', '64:ff9b::a9fe:a9fe'),
  resolvedTo('6to4 of the metadata address', '2002:a9fe:a9fe::'),
  resolvedTo('Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'),
  resolvedTo('IPv4-mapped loopback', '::ffff:127.0.0.1'),
  resolvedTo('IPv4-mapped loopback in hex', '::ffff:7f00:1'),
  resolvedTo('IPv4-mapped metadata', '::ffff:a9fe:a9fe'),
  resolvedTo('IPv4-compatible loopback', '::127.0.0.1'),
  // (mixed and malformed answers)
  resolvedTo('a public and a private answer', PUBLIC_ADDRESS, '10.0.0.1'),
  resolvedTo('a public IPv4 and IPv6 loopback', PUBLIC_ADDRESS, '::1'),
  resolvedTo('a non-canonical loopback', '127.000.000.001'),
  resolvedTo('a decimal loopback', '2130706433'),
  resolvedTo('not an address', 'localhost'),
  // DNS rebinding: a different answer per lookup
  { name: 'rebinding, private first', url: NAME, answers: [['10.0.0.1'], [PUBLIC_ADDRESS]], reason: 'UNSAFE_WEBHOOK_DESTINATION' },
  {
    name: 'rebinding, public first then loopback: the connection goes to the checked public address',
    url: NAME,
    answers: [[PUBLIC_ADDRESS], ['127.0.0.1']],
    reason: 'CONNECTION_FAILED', // the watch cuts the public connection
    connects: [PUBLIC_ADDRESS],
  },
  { name: 'no address at all', url: NAME, answers: [[]], reason: 'WEBHOOK_UNREACHABLE' },
];

let receiver: HttpsReceiver;
let internal: HttpsReceiver;
let watch: ConnectionWatch;

beforeAll(async () => {
  [receiver, internal] = await Promise.all([startHttpsReceiver(), startHttpsReceiver()]);
  watch = watchOutgoingConnections();
});

afterAll(async () => {
  watch.stop();
  await Promise.all([receiver.close(), internal.close()]);
});

beforeEach(() => {
  watch.destinations.length = 0;
  watch.blocked.length = 0;
});

describe('SSRF: every case is refused and nothing reaches loopback', () => {
  it('has the table it claims', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(45);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, ssrf) => {
    // Prepare
    const calls: string[] = [];
    const answers = ssrf.answers ?? [['127.0.0.1']];
    const resolve = async (host: string) => {
      calls.push(host);
      return answers[Math.min(calls.length - 1, answers.length - 1)];
    };
    const send = createWebhookSender({ policy: POLICY, resolve, timeoutMs: 2_000 });

    // Act
    const outcome = await send({ url: ssrf.url.replaceAll('{port}', String(receiver.port)), headers: { 'Content-Type': 'application/json' }, body: '{}' });

    // Assess
    expect(outcome).toMatchObject({ kind: 'failure', reason: ssrf.reason });
    expect(calls).toHaveLength(ssrf.answers ? 1 : 0);
    expect(watch.destinations).toEqual(ssrf.connects ?? []);
    expect(watch.destinations.filter((d) => d.startsWith('127.') || d === '::1')).toEqual([]);
    expect(receiver.requests).toHaveLength(0);
    expect(internal.requests).toHaveLength(0);
  });
});

describe('SSRF: redirects are answers, never followed', () => {
  it.each([
    ['a loopback receiver', () => `${internal.url}?stolen=1`],
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'],
    ['localhost', () => `https://localhost:${internal.port}/internal`],
  ])('a 302 to %s is returned as status 302 and nothing is fetched', async (_name, location) => {
    // Prepare: local mode, so the sender may reach the loopback receiver that redirects
    receiver.requests.length = 0;
    receiver.setHandler(() => ({ status: 302, headers: { Location: location() } }));
    const send = createWebhookSender({ policy: { allowLocal: true, forbiddenHosts: [] }, timeoutMs: 2_000 });

    // Act
    const outcome = await send({ url: receiver.url, headers: { 'Content-Type': 'application/json' }, body: '{}' });

    // Assess
    expect(outcome).toMatchObject({ kind: 'response', status: 302 });
    expect(receiver.requests).toHaveLength(1);
    expect(internal.requests).toHaveLength(0);
    expect(watch.destinations).toEqual(['127.0.0.1']);
    receiver.requests.length = 0;
  });
});
