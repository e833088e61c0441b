/**
 * Which resolved addresses a webhook may be delivered to: public unicast
 * only. The spec re-checks DNS "for public addresses at every verification
 * and delivery"; this is that check, applied by the sender to every address
 * a callback's name resolves to (safe-sender.ts).
 *
 * ipaddr.js names the special ranges (private, loopback, link-local,
 * carrier-grade NAT, multicast, broadcast, 0/8, 240/4, documentation,
 * benchmarking, 192.0.0/24, unique-local, site-local, NAT64, 6to4, Teredo,
 * ...); anything it does not call `unicast` is refused. IPv6 addresses that
 * carry an IPv4 address in their last 32 bits (mapped `::ffff:a.b.c.d`,
 * compatible `::a.b.c.d`) are judged by that IPv4 address; NAT64, 6to4 and
 * Teredo, which embed one elsewhere, are refused outright. An IPv6 address
 * must also be inside 2000::/3, the only block allocated for global unicast.
 *
 * Only canonical spellings are read (dotted decimal without leading zeros,
 * standard IPv6 without a zone): the sender connects to the very string
 * judged here, so a lenient parser must not see a different address than the
 * socket would.
 */
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  /** Local development only: also allow 127.0.0.0/8 and ::1. */
  readonly allowLoopback: boolean;
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const LOOPBACK_V4 = ipaddr.IPv4.parseCIDR('127.0.0.0/8');

/** True when `address` is a canonically written public unicast IPv4 or IPv6 address. */
export function isPublicAddress(address: string): boolean {
  const ip = parseCanonical(address);
  return ip !== undefined && isPublic(ip);
}

/** isPublicAddress, plus loopback (127.0.0.0/8 and ::1 only) when the policy allows it. */
export function isAllowedAddress(address: string, policy: AddressPolicy): boolean {
  const ip = parseCanonical(address);
  if (ip === undefined) return false;
  if (policy.allowLoopback && isLoopback(ip)) return true;
  return isPublic(ip);
}

function parseCanonical(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (typeof address !== 'string') return undefined;
  if (isIPv4(address)) return ipaddr.IPv4.parse(address);
  if (isIPv6(address) && !address.includes('%')) return ipaddr.IPv6.parse(address);
  return undefined;
}

function isLoopback(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (ip.kind() === 'ipv4') return (ip as ipaddr.IPv4).match(LOOPBACK_V4);
  return (ip as ipaddr.IPv6).toNormalizedString() === '0:0:0:0:0:0:0:1';
}

function isPublic(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (ip.kind() === 'ipv4') return (ip as ipaddr.IPv4).range() === 'unicast';
  const v6 = ip as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.range() === 'unicast';
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6);
}

/** The IPv4 address of an IPv4-mapped (::ffff:0:0/96) or IPv4-compatible (::/96, including :: and ::1) IPv6 address. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const [a, b, c, d, e, f, g, h] = v6.parts;
  if (a !== 0 || b !== 0 || c !== 0 || d !== 0 || e !== 0) return undefined;
  if (f !== 0 && f !== 0xffff) return undefined;
  return new ipaddr.IPv4([g >> 8, g & 0xff, h >> 8, h & 0xff]);
}
