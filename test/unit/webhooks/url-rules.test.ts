/**
 * The callback address rules, case by case: what a partner may register
 * (a public HTTPS domain on 443) and every spelling that must be refused,
 * including the ones the WHATWG parser quietly rewrites into something
 * acceptable-looking (numeric IPv4 forms, a dropped `:443`, `@` or `#`).
 */
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, MAX_URL_LENGTH, type UrlPolicy } from '../../../lambdas/webhooks/destination/url-rules';

const PRODUCTION: UrlPolicy = { allowLocal: false, forbiddenHosts: ['partner-api.screening-platform.io', 'Screening-Platform.io.'] };
const LOCAL: UrlPolicy = { allowLocal: true, forbiddenHosts: ['screening-platform.io'] };

describe('checkWebhookUrl accepts public HTTPS domain URLs on 443', () => {
  it.each([
    ['https://hooks.partner.net/webhooks', 'hooks.partner.net'],
    ['https://hooks.partner.net', 'hooks.partner.net'],
    ['https://hooks.partner.net:443/in?x=1&y=2', 'hooks.partner.net'],
    ['HTTPS://Hooks.Partner.NET./in', 'hooks.partner.net'],
    ['https://a-b.c-d.io/', 'a-b.c-d.io'],
    ['https://exämple.de/', 'xn--exmple-cua.de'],
    ['https://xn--exmple-cua.de/', 'xn--exmple-cua.de'],
    ['https://partner-example.com/', 'partner-example.com'],
    ['https://example.com.partner.net/', 'example.com.partner.net'],
    ['https://notlocalhost.dev/', 'notlocalhost.dev'],
    ['https://notscreening-platform.io/', 'notscreening-platform.io'],
    ['https://screening-platform.io.partner.net/', 'screening-platform.io.partner.net'],
    ['https://0x7f.partner.net/', '0x7f.partner.net'],
    ['https://127.0.0.1.nip.example-partner.net/', '127.0.0.1.nip.example-partner.net'],
    [`https://${'a'.repeat(63)}.partner.net/`, `${'a'.repeat(63)}.partner.net`],
  ])('%s', (raw, host) => {
    const result = checkWebhookUrl(raw, PRODUCTION);

    expect(result).toMatchObject({ ok: true, host, port: 443 });
    if (result.ok) expect(result.url.protocol).toBe('https:');
  });

  it(`accepts ${MAX_URL_LENGTH} characters and refuses one more`, () => {
    const base = 'https://hooks.partner.net/';
    const longest = base + 'p'.repeat(MAX_URL_LENGTH - base.length);

    expect(checkWebhookUrl(longest, PRODUCTION).ok).toBe(true);
    expect(checkWebhookUrl(`${longest}p`, PRODUCTION)).toMatchObject({ ok: false, reason: 'INVALID_WEBHOOK_URL' });
  });

  it('accepts a 253-character name and refuses 254', () => {
    const label = 'a'.repeat(49);
    const name253 = `${[label, label, label, label, label].join('.')}.net`; // 5 × 49 + 5 dots + 3 = 253
    expect(name253).toHaveLength(253);

    expect(checkWebhookUrl(`https://${name253}/`, PRODUCTION)).toMatchObject({ ok: true, host: name253 });
    expect(checkWebhookUrl(`https://a${name253}/`, PRODUCTION).ok).toBe(false);
  });
});

describe('checkWebhookUrl refuses', () => {
  it.each([
    // text
    ['empty', ''],
    ['not a URL', 'hooks.partner.net/webhooks'],
    ['a space', 'https://hooks.partner.net/a b'],
    ['a tab WHATWG would drop', 'https://hooks.partner.net/\t'],
    ['a newline inside the host', 'https://hooks.part\nner.net/'],
    ['a leading space', ' https://hooks.partner.net/'],
    ['a NUL', 'https://hooks.partner.net/\u0000'],
    ['a no-break space', 'https://hooks.partner.net/\u00a0'],
    ['a backslash', 'https://evil.net\\@hooks.partner.net/'],
    // scheme
    ['http', 'http://hooks.partner.net/'],
    ['ftp', 'ftp://hooks.partner.net/'],
    ['ws', 'wss://hooks.partner.net/'],
    ['file', 'file:///etc/passwd'],
    ['javascript', 'javascript:alert(1)'],
    ['https without slashes', 'https:hooks.partner.net/'],
    ['https with one slash', 'https:/hooks.partner.net/'],
    // port
    ['port 80', 'https://hooks.partner.net:80/'],
    ['port 8443', 'https://hooks.partner.net:8443/'],
    ['port 0', 'https://hooks.partner.net:0/'],
    ['port 0443 (443 spelled otherwise)', 'https://hooks.partner.net:0443/'],
    ['an empty port', 'https://hooks.partner.net:/'],
    ['port 65536', 'https://hooks.partner.net:65536/'],
    // userinfo
    ['user and password', 'https://user:pw@hooks.partner.net/'],
    ['a user', 'https://user@hooks.partner.net/'],
    ['an empty userinfo', 'https://@hooks.partner.net/'],
    ['a host that is really userinfo', 'https://hooks.partner.net@evil.net/'],
    ['an empty password', 'https://user:@hooks.partner.net/'],
    // fragment
    ['a fragment', 'https://hooks.partner.net/in#part'],
    ['a bare trailing #', 'https://hooks.partner.net/in#'],
    // IP literals in any spelling
    ['dotted IPv4', 'https://93.184.215.14/'],
    ['loopback', 'https://127.0.0.1/'],
    ['decimal IPv4', 'https://2130706433/'],
    ['hex IPv4', 'https://0x7f000001/'],
    ['hex dotted IPv4', 'https://0x7f.1/'],
    ['octal IPv4', 'https://0177.0.0.1/'],
    ['short IPv4', 'https://127.1/'],
    ['IPv4 with a trailing dot', 'https://127.0.0.1./'],
    ['percent-encoded IPv4', 'https://%31%32%37.0.0.1/'],
    ['full-width IPv4', 'https://１２７.０.０.１/'],
    ['0.0.0.0', 'https://0.0.0.0/'],
    ['IPv6 loopback', 'https://[::1]/'],
    ['IPv6 unspecified', 'https://[::]/'],
    ['IPv4-mapped IPv6', 'https://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped IPv6 in hex', 'https://[::ffff:7f00:1]/'],
    ['IPv4-mapped IPv6 written out', 'https://[0:0:0:0:0:ffff:127.0.0.1]/'],
    ['IPv6 with a zone id', 'https://[fe80::1%25eth0]/'],
    ['a public IPv6', 'https://[2606:4700::1111]/'],
    // names
    ['a single label', 'https://intranet/'],
    ['localhost', 'https://localhost/'],
    ['LOCALHOST with a trailing dot', 'https://LOCALHOST./'],
    ['a localhost subdomain', 'https://api.localhost/'],
    ['.local', 'https://printer.local/'],
    ['.localdomain', 'https://host.localdomain/'],
    ['.internal', 'https://ip-10-0-0-1.ec2.internal/'],
    ['.intranet', 'https://wiki.intranet/'],
    ['.lan', 'https://router.lan/'],
    ['.home.arpa', 'https://nas.home.arpa/'],
    ['.arpa', 'https://1.0.0.127.in-addr.arpa/'],
    ['.test', 'https://hooks.test/'],
    ['.example', 'https://hooks.example/'],
    ['.invalid', 'https://hooks.invalid/'],
    ['.onion', 'https://abcdefghijklmnop.onion/'],
    ['.corp', 'https://db.corp/'],
    ['.home', 'https://nas.home/'],
    ['example.com', 'https://example.com/'],
    ['a subdomain of example.net', 'https://hooks.example.net/'],
    ['example.org', 'https://EXAMPLE.org./'],
    ['metadata.google.internal', 'https://metadata.google.internal/computeMetadata/v1/'],
    ['metadata.goog', 'https://metadata.goog/'],
    ['instance-data', 'https://instance-data/latest/meta-data/'],
    ['an underscore', 'https://hooks_in.partner.net/'],
    ['a leading hyphen', 'https://-hooks.partner.net/'],
    ['a trailing hyphen', 'https://hooks-.partner.net/'],
    ['an empty label', 'https://hooks..partner.net/'],
    ['a leading dot', 'https://.partner.net/'],
    ['a 64-character label', `https://${'a'.repeat(64)}.partner.net/`],
    ['a numeric top-level label', 'https://hooks.partner.123/'],
    ['a percent-encoded name', 'https://hooks.p%61rtner.net/'],
    // the service's own hosts
    ['the service itself', 'https://partner-api.screening-platform.io/v1'],
    ['the service domain', 'https://screening-platform.io/'],
    ['a service subdomain in capitals with a trailing dot', 'https://Web.Screening-Platform.IO./hooks'],
    // local hosts without local mode
    ['127.0.0.1 with a port', 'https://127.0.0.1:8443/hook'],
    ['localhost with a port', 'https://localhost:8443/hook'],
  ])('%s: %s', (_name, raw) => {
    const result = checkWebhookUrl(raw, PRODUCTION);

    expect(result).toMatchObject({ ok: false, reason: 'INVALID_WEBHOOK_URL' });
    if (!result.ok) expect(result.detail).not.toBe('');
  });
});

describe('checkWebhookUrl in local mode', () => {
  it.each([
    ['https://127.0.0.1:8443/hook', '127.0.0.1', 8443],
    ['https://localhost:3000/', 'localhost', 3000],
    ['https://LocalHost:1/x', 'localhost', 1],
    ['https://127.0.0.1/hook', '127.0.0.1', 443],
    ['https://hooks.partner.net/in', 'hooks.partner.net', 443],
  ])('accepts %s', (raw, host, port) => {
    expect(checkWebhookUrl(raw, LOCAL)).toMatchObject({ ok: true, host, port });
  });

  it.each([
    ['http', 'http://127.0.0.1:8443/hook'],
    ['userinfo', 'https://user@127.0.0.1:8443/hook'],
    ['a fragment', 'https://localhost:8443/hook#x'],
    ['a bare #', 'https://localhost:8443/hook#'],
    ['another loopback address', 'https://127.0.0.2:8443/'],
    ['127.0.0.1 spelled in decimal', 'https://2130706433:8443/'],
    ['127.0.0.1 spelled short', 'https://127.1:8443/'],
    ['IPv6 loopback', 'https://[::1]:8443/'],
    ['a localhost subdomain', 'https://api.localhost:8443/'],
    ['a public name on another port', 'https://hooks.partner.net:8443/'],
    ['the service domain', 'https://screening-platform.io/'],
    ['a private IPv4', 'https://10.0.0.1:8443/'],
  ])('still refuses %s: %s', (_name, raw) => {
    expect(checkWebhookUrl(raw, LOCAL)).toMatchObject({ ok: false, reason: 'INVALID_WEBHOOK_URL' });
  });

  it.each(['https://127.0.0.1:3000/v1/health', 'https://localhost:3000/v1/me', 'https://LOCALHOST.:3000/'])(
    'refuses the local stack’s own port (the service’s own domain) however it is spelled: %s',
    (raw) => {
      expect(checkWebhookUrl(raw, { ...LOCAL, ownLocalPorts: [3000] })).toMatchObject({ ok: false, reason: 'INVALID_WEBHOOK_URL', detail: "the service's own domain" });
      expect(checkWebhookUrl('https://127.0.0.1:3001/hook', { ...LOCAL, ownLocalPorts: [3000] })).toMatchObject({ ok: true });
    },
  );
});
