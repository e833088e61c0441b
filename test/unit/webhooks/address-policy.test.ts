/**
 * Which resolved addresses a delivery may connect to: public unicast only,
 * IPv4 and IPv6, with IPv4 hidden inside IPv6 judged by the IPv4, and only
 * canonical spellings read (the sender connects to the very string judged).
 */
import { describe, expect, it } from 'vitest';
import { isAllowedAddress, isPublicAddress } from '../../../lambdas/webhooks/destination/address-policy';

const PUBLIC: readonly [string, string][] = [
  ['a public IPv4', '93.184.215.14'],
  ['a public IPv4 next to 10/8', '11.0.0.1'],
  ['just above 172.16/12', '172.32.0.1'],
  ['just below 100.64/10', '100.63.255.255'],
  ['just above 100.64/10', '100.128.0.1'],
  ['just above 198.18/15', '198.20.0.1'],
  ['just below 224/4', '223.255.255.254'],
  ['a public IPv6', '2606:4700:4700::1111'],
  ['a public IPv6, long form', '2001:4860:4860:0:0:0:0:8888'],
  ['a public IPv4, mapped into IPv6', '::ffff:93.184.215.14'],
  ['a public IPv4, mapped into IPv6 in hex', '::ffff:5db8:d70e'],
];

const NOT_PUBLIC: readonly [string, string][] = [
  ['0/8 unspecified', '0.0.0.0'],
  ['0/8', '0.1.2.3'],
  ['10/8', '10.0.0.1'],
  ['10/8 end', '10.255.255.255'],
  ['172.16/12', '172.16.0.1'],
  ['172.16/12 end', '172.31.255.255'],
  ['192.168/16', '192.168.1.1'],
  ['loopback', '127.0.0.1'],
  ['loopback /8', '127.255.255.254'],
  ['link-local', '169.254.0.1'],
  ['the metadata address', '169.254.169.254'],
  ['carrier-grade NAT', '100.64.0.1'],
  ['carrier-grade NAT (Alibaba metadata)', '100.100.100.200'],
  ['192.0.0/24 (Oracle metadata)', '192.0.0.192'],
  ['documentation TEST-NET-1', '192.0.2.1'],
  ['documentation TEST-NET-2', '198.51.100.7'],
  ['documentation TEST-NET-3', '203.0.113.9'],
  ['benchmarking', '198.18.0.1'],
  ['benchmarking end', '198.19.255.255'],
  ['6to4 relay anycast', '192.88.99.1'],
  ['multicast', '224.0.0.1'],
  ['multicast end', '239.255.255.255'],
  ['reserved 240/4', '240.0.0.1'],
  ['broadcast', '255.255.255.255'],
  ['IPv6 unspecified', '::'],
  ['IPv6 loopback', '::1'],
  ['IPv6 loopback written out', '0:0:0:0:0:0:0:1'],
  ['IPv6 link-local', 'fe80::1'],
  ['IPv6 link-local end', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ['unique-local', 'fc00::1'],
  ['unique-local (EC2 metadata)', 'fd00:ec2::254'],
  ['site-local', 'fec0::1'],
  ['IPv6 multicast', 'ff02::1'],
  ['IPv6 documentation', '2001:db8::1'],
  ['IPv6 benchmarking', '2001:2::1'],
  ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  ['6to4 of the metadata address', '2002:a9fe:a9fe::'],
  ['6to4 of a public address', '2002:5db8:d70e::1'],
  ['NAT64 of the metadata address', '64:ff9b::a9fe:a9fe'],
  ['NAT64 of a public address', '64:ff9b::5db8:d70e'],
  ['NAT64 local-use', '64:ff9b:1::1'],
  ['discard-only', '100::1'],
  ['outside 2000::/3', '4000::1'],
  ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
  ['IPv4-mapped loopback in hex', '::ffff:7f00:1'],
  ['IPv4-mapped loopback written out', '0:0:0:0:0:ffff:127.0.0.1'],
  ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
  ['IPv4-mapped private', '::ffff:10.0.0.1'],
  ['IPv4-compatible loopback', '::127.0.0.1'],
  ['IPv4-compatible private', '::10.0.0.1'],
  ['IPv4-translated (RFC 6145)', '::ffff:0:5db8:d70e'],
  // unparseable or non-canonical
  ['empty', ''],
  ['a name', 'hooks.partner.net'],
  ['decimal IPv4', '2130706433'],
  ['hex IPv4', '0x7f.0.0.1'],
  ['octal IPv4', '0177.0.0.1'],
  ['leading zeros', '010.0.0.1'],
  ['short IPv4', '127.1'],
  ['IPv4 with a port', '93.184.215.14:443'],
  ['bracketed IPv6', '[2606:4700:4700::1111]'],
  ['IPv6 with a zone', 'fe80::1%eth0'],
  ['a public IPv6 with a zone', '2606:4700:4700::1111%1'],
  ['a CIDR', '93.184.215.0/24'],
  ['whitespace', ' 93.184.215.14'],
];

describe('isPublicAddress', () => {
  it.each(PUBLIC)('accepts %s: %s', (_name, address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each(NOT_PUBLIC)('refuses %s: %s', (_name, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it('refuses what is not a string', () => {
    expect(isPublicAddress(undefined as unknown as string)).toBe(false);
    expect(isPublicAddress(2130706433 as unknown as string)).toBe(false);
  });
});

describe('isAllowedAddress', () => {
  it.each(PUBLIC)('allows %s in both modes: %s', (_name, address) => {
    expect(isAllowedAddress(address, { allowLoopback: false })).toBe(true);
    expect(isAllowedAddress(address, { allowLoopback: true })).toBe(true);
  });

  it.each(['127.0.0.1', '127.0.0.53', '127.255.255.254', '::1', '0:0:0:0:0:0:0:1'])('allows loopback %s only when asked', (address) => {
    expect(isAllowedAddress(address, { allowLoopback: false })).toBe(false);
    expect(isAllowedAddress(address, { allowLoopback: true })).toBe(true);
  });

  it.each([
    '10.0.0.1',
    '169.254.169.254',
    '0.0.0.0',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::127.0.0.1',
    '0177.0.0.1',
    '127.1',
    '2130706433',
    'localhost',
  ])('refuses %s even with loopback allowed', (address) => {
    expect(isAllowedAddress(address, { allowLoopback: true })).toBe(false);
  });
});
