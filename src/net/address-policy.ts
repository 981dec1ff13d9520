import { isIP } from 'node:net';
import { WebcapError } from '../errors.js';

/**
 * Which destination addresses the service may connect to for a caller: only global unicast by
 * default (IANA special-purpose registries, RFC 6890 and its updates), plus what the operator
 * lists in WEBCAP_ALLOW_PRIVATE. DESIGN.md §3 "Network guard".
 */

/** The outcome of a check; a refusal says why in words safe to show the caller. */
export type AddressVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: string; readonly allow: AllowHint | null };

/** How the operator could let a refused address through: the WEBCAP_ALLOW_PRIVATE entry that would. */
export interface AllowHint {
  /** The entry for this one address and port, as WEBCAP_ALLOW_PRIVATE spells it (`127.0.0.1/32:8080`). */
  readonly entry: string;
  readonly port: number;
  /** The allow list has the address, on other ports only: the port is what is missing. */
  readonly otherPortsListed: boolean;
}

interface Ip {
  readonly family: 4 | 6;
  readonly bits: bigint;
}

interface Cidr extends Ip {
  readonly prefix: number;
}

/** One WEBCAP_ALLOW_PRIVATE entry: a range and, optionally, the one port allowed in it. */
export interface AllowRule {
  readonly cidr: Cidr;
  /** null: every port. */
  readonly port: number | null;
}

const ALLOWED: AddressVerdict = { allowed: true };
const refused = (reason: string): AddressVerdict => ({ allowed: false, reason, allow: null });

function width(family: 4 | 6): number {
  return family === 4 ? 32 : 128;
}

function parseV4(text: string): bigint | null {
  if (isIP(text) !== 4) return null;
  return text.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
}

function parseV6(text: string): bigint | null {
  // A zone (fe80::1%eth0) names an interface; the address itself is what gets classified.
  const address = text.split('%')[0] ?? '';
  if (isIP(address) !== 6) return null;
  let head = address;
  let low = 0n;
  const lastColon = address.lastIndexOf(':');
  if (address.includes('.', lastColon)) {
    // A dotted IPv4 tail (::ffff:1.2.3.4) fills the last two groups.
    low = parseV4(address.slice(lastColon + 1)) ?? 0n;
    head = `${address.slice(0, lastColon + 1)}0:0`;
  }
  const [left = '', right] = head.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const leftGroups = groups(left);
  const rightGroups = right === undefined ? [] : groups(right);
  const zeros = Array<string>(8 - leftGroups.length - rightGroups.length).fill('0');
  const all = right === undefined ? leftGroups : [...leftGroups, ...zeros, ...rightGroups];
  return all.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n) | low;
}

function parseIp(text: string): Ip | null {
  const v4 = parseV4(text);
  if (v4 !== null) return { family: 4, bits: v4 };
  const v6 = parseV6(text);
  return v6 === null ? null : { family: 6, bits: v6 };
}

/** An address as an allow-list entry spells it: dotted IPv4, or canonical IPv6 in brackets. */
function entryAddress(ip: Ip): string {
  if (ip.family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((ip.bits >> shift) & 0xffn)).join('.');
  }
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) =>
    ((ip.bits >> shift) & 0xffffn).toString(16),
  );
  // WHATWG URL serializes IPv6 canonically (RFC 5952: the longest run of zeros as ::, lower case).
  return new URL(`http://[${groups.join(':')}]/`).hostname;
}

function parseCidr(text: string): Cidr {
  const [address = '', prefixText] = text.split('/');
  const ip = parseIp(address);
  if (ip === null) throw new Error(`bad range in the policy table: ${text}`);
  return { ...ip, prefix: prefixText === undefined ? width(ip.family) : Number(prefixText) };
}

function contains(cidr: Cidr, ip: Ip): boolean {
  if (cidr.family !== ip.family) return false;
  const shift = BigInt(width(ip.family) - cidr.prefix);
  return ip.bits >> shift === cidr.bits >> shift;
}

const MAPPED = parseCidr('::ffff:0:0/96');

/** ::ffff:a.b.c.d is the IPv4 host a.b.c.d on a dual-stack socket: it is classified (and allowed) as that host. */
function unwrapMapped(ip: Ip): Ip {
  return contains(MAPPED, ip) ? { family: 4, bits: ip.bits & 0xffff_ffffn } : ip;
}

type Rule = readonly [range: string, reason: string];

// Order matters only where ranges nest: the first match gives the reason.
const V4_REFUSED: readonly Rule[] = [
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['10.0.0.0/8', 'a private address (RFC 1918)'],
  ['100.64.0.0/10', 'a shared carrier-grade NAT address (RFC 6598)'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address (cloud metadata services live here)'],
  ['172.16.0.0/12', 'a private address (RFC 1918)'],
  ['192.0.0.0/24', 'an IETF protocol assignment address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a deprecated 6to4 relay address'],
  ['192.168.0.0/16', 'a private address (RFC 1918)'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['255.255.255.255/32', 'the broadcast address'],
  ['240.0.0.0/4', 'a reserved address'],
];

const V6_REFUSED: readonly Rule[] = [
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['::/96', 'a deprecated IPv4-compatible IPv6 address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address (RFC 8215)'],
  ['100::/64', 'a discard-only address'],
  ['2001:2::/48', 'a benchmarking address'],
  ['2001:10::/28', 'an ORCHID identifier, not an address'],
  ['2001:20::/28', 'an ORCHIDv2 identifier, not an address'],
  ['2001:db8::/32', 'a documentation address'],
  ['3fff::/20', 'a documentation address'],
  ['5f00::/16', 'an SRv6 segment identifier'],
  ['fc00::/7', 'a unique local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a deprecated site-local address'],
  ['ff00::/8', 'a multicast address'],
];

const compile = (rules: readonly Rule[]) =>
  rules.map(([range, reason]) => ({ cidr: parseCidr(range), reason }));
const V4_TABLE = compile(V4_REFUSED);
const V6_TABLE = compile(V6_REFUSED);
const GLOBAL_UNICAST_V6 = parseCidr('2000::/3');

// Prefixes whose addresses carry an IPv4 address that a translator or tunnel will reach:
// the IPv6 address is refused when the IPv4 inside it is.
const NAT64 = parseCidr('64:ff9b::/96'); // RFC 6052: IPv4 in the last 32 bits
const SIX_TO_FOUR = parseCidr('2002::/16'); // RFC 3056: IPv4 in bits 16-47
const TEREDO = parseCidr('2001::/32'); // RFC 4380: server IPv4 in bits 32-63, client IPv4 inverted in the last 32

function classifyV4(bits: bigint): AddressVerdict {
  const ip: Ip = { family: 4, bits };
  const hit = V4_TABLE.find((rule) => contains(rule.cidr, ip));
  return hit === undefined ? ALLOWED : refused(hit.reason);
}

function embedded(ip: Ip): { readonly kind: string; readonly v4: readonly bigint[] } | null {
  if (contains(NAT64, ip)) return { kind: 'a NAT64 address', v4: [ip.bits & 0xffff_ffffn] };
  if (contains(SIX_TO_FOUR, ip)) return { kind: 'a 6to4 address', v4: [(ip.bits >> 80n) & 0xffff_ffffn] };
  if (contains(TEREDO, ip)) {
    const server = (ip.bits >> 64n) & 0xffff_ffffn;
    const client = ~ip.bits & 0xffff_ffffn;
    return { kind: 'a Teredo address', v4: [server, client] };
  }
  return null;
}

function classifyIp(ip: Ip): AddressVerdict {
  if (ip.family === 4) return classifyV4(ip.bits);
  const hit = V6_TABLE.find((rule) => contains(rule.cidr, ip));
  if (hit !== undefined) return refused(hit.reason);
  const tunnel = embedded(ip);
  if (tunnel !== null) {
    for (const v4 of tunnel.v4) {
      const inner = classifyV4(v4);
      if (!inner.allowed) return refused(`${tunnel.kind} embedding ${inner.reason}`);
    }
    return ALLOWED;
  }
  return contains(GLOBAL_UNICAST_V6, ip) ? ALLOWED : refused('a reserved IPv6 address (not global unicast)');
}

const ENTRY_V4 = /^(\d{1,3}(?:\.\d{1,3}){3})(?:\/(\d{1,2}))?(?::(\d{1,5}))?$/;
const ENTRY_V6 = /^\[([0-9A-Fa-f:.]+)\](?:\/(\d{1,3}))?(?::(\d{1,5}))?$/;

function parseAllowEntry(entry: string): AllowRule | undefined {
  const match = ENTRY_V4.exec(entry) ?? ENTRY_V6.exec(entry);
  if (match === null) return undefined;
  const [, address = '', prefixText, portText] = match;
  const ip = parseIp(address);
  if (ip === null) return undefined;
  const prefix = prefixText === undefined ? width(ip.family) : Number(prefixText);
  const port = portText === undefined ? null : Number(portText);
  if (prefix > width(ip.family) || (port !== null && (port < 1 || port > 65535))) return undefined;
  // Bits set beyond the prefix (10.1.2.3/8) are most likely a typo for another range: refuse it.
  const hostBits = (1n << BigInt(width(ip.family) - prefix)) - 1n;
  if ((ip.bits & hostBits) !== 0n) return undefined;
  const cidr: Cidr = { ...ip, prefix };
  // Addresses are matched after ::ffff:a.b.c.d is unwrapped, so a mapped range is stored as IPv4.
  if (cidr.family === 6 && prefix >= 96 && contains(MAPPED, cidr)) {
    return { cidr: { family: 4, bits: cidr.bits & 0xffff_ffffn, prefix: prefix - 96 }, port };
  }
  return { cidr, port };
}

/** Parses `cidr[:port],...` (IPv6 in brackets: `[::1]/128:8080`; no prefix means one address); undefined when any entry is malformed. */
export function parseAllowList(text: string): readonly AllowRule[] | undefined {
  const rules: AllowRule[] = [];
  for (const entry of text.split(',')) {
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const rule = parseAllowEntry(trimmed);
    if (rule === undefined) return undefined;
    rules.push(rule);
  }
  return Object.freeze(rules);
}

/** The address policy in force: the default classification plus the operator's allow list. */
export class NetworkPolicy {
  constructor(readonly allowList: readonly AllowRule[] = []) {}

  /**
   * Whether a connection to address:port may be made. An IPv4 or IPv6 address (an optional %zone
   * is ignored) passes when it is global unicast, or when an allow-list entry lets it through.
   */
  check(address: string, port: number): AddressVerdict {
    const ip = parseIp(address);
    if (ip === null) return refused('not an IP address');
    const host = unwrapMapped(ip);
    const verdict = classifyIp(host);
    if (verdict.allowed) return verdict;
    const rules = this.allowList.filter((rule) => contains(rule.cidr, host));
    if (rules.some((rule) => rule.port === null || rule.port === port)) return ALLOWED;
    const allow: AllowHint = {
      entry: `${entryAddress(host)}/${width(host.family)}:${port}`,
      port,
      otherPortsListed: rules.length > 0,
    };
    return { ...verdict, allow };
  }
}

/**
 * The 'blocked' error (400) for a refused destination: the host as the caller wrote it, why, and
 * the WEBCAP_ALLOW_PRIVATE entry that would let it through (or that the port is what is missing).
 * A host name's resolved address is never named: the caller did not give it, and a name that
 * resolves to an internal address (rebinding) must not turn into a map of the operator's network.
 */
export function blockedError(
  host: string,
  verdict: Extract<AddressVerdict, { allowed: false }>,
  via: 'literal' | 'dns',
): WebcapError {
  const { reason, allow } = verdict;
  const subject = via === 'dns' ? `${host} resolves to` : `${host} is`;
  if (allow === null) return new WebcapError('blocked', `${subject} ${reason}`);
  if (via === 'literal') {
    return new WebcapError(
      'blocked',
      allow.otherPortsListed
        ? `${host} is allowed by WEBCAP_ALLOW_PRIVATE but not on port ${allow.port}; add ${allow.entry}`
        : `${subject} ${reason}; allow it with WEBCAP_ALLOW_PRIVATE=${allow.entry}`,
    );
  }
  return new WebcapError(
    'blocked',
    allow.otherPortsListed
      ? `${subject} an address allowed by WEBCAP_ALLOW_PRIVATE but not on port ${allow.port}; add that address with :${allow.port}`
      : `${subject} ${reason}; allow that address on port ${allow.port} with WEBCAP_ALLOW_PRIVATE`,
  );
}
