import { describe, expect, it } from 'vitest';
import { errorResponse } from '../errors.js';
import { blockedError, NetworkPolicy, parseAllowList } from './address-policy.js';

// The default policy, with no allow list: what every address gets unless the operator lists it.
const defaultPolicy = new NetworkPolicy();
const verdictOf = (address: string) => defaultPolicy.check(address, 443);
const reasonOf = (address: string) => {
  const verdict = verdictOf(address);
  return verdict.allowed ? 'allowed' : verdict.reason;
};

describe('NetworkPolicy, default: IPv4', () => {
  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['93.184.216.34'],
    ['9.255.255.255'], // just below 10/8
    ['11.0.0.0'], // just above 10/8
    ['100.63.255.255'], // just below 100.64/10
    ['100.128.0.0'], // just above it
    ['126.255.255.255'],
    ['128.0.0.0'],
    ['169.253.255.255'],
    ['172.15.255.255'],
    ['172.32.0.0'],
    ['192.167.255.255'],
    ['192.169.0.0'],
    ['198.17.255.255'],
    ['198.20.0.0'],
    ['223.255.255.255'],
  ])('allows global unicast %s', (address) => {
    expect(verdictOf(address)).toEqual({ allowed: true });
  });

  it.each([
    ['0.0.0.0', 'an unspecified ("this network") address'],
    ['0.1.2.3', 'an unspecified ("this network") address'],
    ['10.0.0.1', 'a private address (RFC 1918)'],
    ['10.255.255.255', 'a private address (RFC 1918)'],
    ['100.64.0.1', 'a shared carrier-grade NAT address (RFC 6598)'],
    ['100.127.255.255', 'a shared carrier-grade NAT address (RFC 6598)'],
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['169.254.169.254', 'a link-local address (cloud metadata services live here)'],
    ['169.254.0.1', 'a link-local address (cloud metadata services live here)'],
    ['172.16.0.1', 'a private address (RFC 1918)'],
    ['172.31.255.255', 'a private address (RFC 1918)'],
    ['192.0.0.8', 'an IETF protocol assignment address'],
    ['192.0.2.1', 'a documentation address'],
    ['192.88.99.1', 'a deprecated 6to4 relay address'],
    ['192.168.1.1', 'a private address (RFC 1918)'],
    ['198.18.0.1', 'a benchmarking address'],
    ['198.19.255.255', 'a benchmarking address'],
    ['198.51.100.7', 'a documentation address'],
    ['203.0.113.9', 'a documentation address'],
    ['224.0.0.1', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['240.0.0.1', 'a reserved address'],
    ['255.255.255.254', 'a reserved address'],
    ['255.255.255.255', 'the broadcast address'],
  ])('refuses %s: %s', (address, reason) => {
    expect(reasonOf(address)).toBe(reason);
  });
});

describe('NetworkPolicy, default: IPv6', () => {
  it.each([
    ['2606:4700:4700::1111'],
    ['2a00:1450:4001:80b::200e'],
    ['2001:4860:4860::8888'],
    ['::ffff:8.8.8.8'], // IPv4-mapped public address: the IPv4 host itself
    ['64:ff9b::808:808'], // NAT64 of 8.8.8.8
    ['2002:808:808::1'], // 6to4 of 8.8.8.8
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7'], // Teredo: server 65.54.227.120, client 8.8.8.8
  ])('allows %s', (address) => {
    expect(verdictOf(address)).toEqual({ allowed: true });
  });

  it.each([
    ['::', 'an unspecified address'],
    ['::1', 'a loopback address'],
    ['0:0:0:0:0:0:0:1', 'a loopback address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['::ffff:169.254.169.254', 'a link-local address (cloud metadata services live here)'],
    ['::ffff:a9fe:a9fe', 'a link-local address (cloud metadata services live here)'],
    ['::ffff:10.0.0.1', 'a private address (RFC 1918)'],
    ['::127.0.0.1', 'a deprecated IPv4-compatible IPv6 address'],
    ['::8.8.8.8', 'a deprecated IPv4-compatible IPv6 address'],
    ['64:ff9b::7f00:1', 'a NAT64 address embedding a loopback address'],
    [
      '64:ff9b::a9fe:a9fe',
      'a NAT64 address embedding a link-local address (cloud metadata services live here)',
    ],
    ['64:ff9b::10.0.0.1', 'a NAT64 address embedding a private address (RFC 1918)'],
    ['64:ff9b:1::a9fe:a9fe', 'a local-use NAT64 address (RFC 8215)'],
    ['2002:7f00:1::', 'a 6to4 address embedding a loopback address'],
    ['2002:a9fe:a9fe::', 'a 6to4 address embedding a link-local address (cloud metadata services live here)'],
    ['2002:c0a8:101::1', 'a 6to4 address embedding a private address (RFC 1918)'],
    // Teredo: the client's IPv4 is stored inverted (169.254.169.254 → 5601:5601).
    [
      '2001:0:4136:e378:8000:63bf:5601:5601',
      'a Teredo address embedding a link-local address (cloud metadata services live here)',
    ],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'a Teredo address embedding a loopback address'],
    // ...and a Teredo server address that is itself refused.
    ['2001:0:a00:1::1', 'a Teredo address embedding a private address (RFC 1918)'],
    ['100::1', 'a discard-only address'],
    ['2001:2::1', 'a benchmarking address'],
    ['2001:10::1', 'an ORCHID identifier, not an address'],
    ['2001:20::1', 'an ORCHIDv2 identifier, not an address'],
    ['2001:db8::1', 'a documentation address'],
    ['3fff::1', 'a documentation address'],
    ['5f00::1', 'an SRv6 segment identifier'],
    ['fc00::1', 'a unique local address'],
    ['fd12:3456:789a::1', 'a unique local address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['febf::1', 'a link-local address'],
    ['fec0::1', 'a deprecated site-local address'],
    ['ff02::1', 'a multicast address'],
    ['ff05::1:3', 'a multicast address'],
    ['::ffff:0:7f00:1', 'a reserved IPv6 address (not global unicast)'], // SIIT IPv4-translated
    ['1::1', 'a reserved IPv6 address (not global unicast)'],
    ['4000::1', 'a reserved IPv6 address (not global unicast)'],
  ])('refuses %s: %s', (address, reason) => {
    expect(reasonOf(address)).toBe(reason);
  });

  it('refuses what is not an IP address', () => {
    for (const text of ['localhost', '127.1', '2130706433', '0x7f.0.0.1', '[::1]', '', '1.2.3.4.5', '::g']) {
      expect(reasonOf(text)).toBe('not an IP address');
    }
  });
});

describe('parseAllowList', () => {
  it('accepts ranges, single addresses, ports and bracketed IPv6', () => {
    const rules = parseAllowList(' 127.0.0.1/32:8081, 10.0.0.0/8 ,[::1]/128:8080,192.168.1.5,[fd00::]/8,, ');
    expect(rules).toHaveLength(5);
    expect(rules?.map((rule) => rule.port)).toEqual([8081, null, 8080, null, null]);
  });

  it.each([
    ['127.0.0.1/33'],
    ['10.1.2.3/8'], // bits beyond the prefix: a typo for another range
    ['127.0.0.1:0'],
    ['127.0.0.1:65536'],
    ['::1/128'], // IPv6 needs brackets
    ['[::1/128]:80'],
    ['[::1]/129'],
    ['localhost'],
    ['127.1'],
    ['256.0.0.0/8'],
    ['10.0.0.0/8:'],
    ['10.0.0.0/8;127.0.0.1'],
  ])('refuses %s', (text) => {
    expect(parseAllowList(text)).toBeUndefined();
  });

  it('an empty list allows nothing', () => {
    expect(parseAllowList('')).toEqual([]);
  });
});

describe('NetworkPolicy with an allow list', () => {
  const policy = new NetworkPolicy(
    parseAllowList('127.0.0.1/32:8081,10.0.0.0/8,[::1]/128:8080,[::ffff:192.168.0.0]/112:443'),
  );

  it('lets through a listed private address, on the listed port only', () => {
    expect(policy.check('127.0.0.1', 8081)).toEqual({ allowed: true });
    expect(policy.check('127.0.0.1', 8082)).toEqual({
      allowed: false,
      reason: 'a loopback address',
      allow: { entry: '127.0.0.1/32:8082', port: 8082, otherPortsListed: true },
    });
    expect(policy.check('127.0.0.2', 8081).allowed).toBe(false);
    expect(policy.check('10.20.30.40', 1).allowed).toBe(true);
    expect(policy.check('::1', 8080).allowed).toBe(true);
    expect(policy.check('::1', 8081).allowed).toBe(false);
  });

  it('matches an IPv4-mapped address as the IPv4 host it is, and mapped ranges as IPv4', () => {
    expect(policy.check('::ffff:127.0.0.1', 8081).allowed).toBe(true);
    expect(policy.check('::ffff:127.0.0.1', 8082).allowed).toBe(false);
    expect(policy.check('192.168.3.4', 443).allowed).toBe(true);
    expect(policy.check('192.168.3.4', 80).allowed).toBe(false);
  });

  it('does not extend the allow list to translated forms of a listed address', () => {
    // NAT64, 6to4 and Teredo reach a translator, not the listed host.
    expect(policy.check('64:ff9b::7f00:1', 8081).allowed).toBe(false);
    expect(policy.check('2002:7f00:1::', 8081).allowed).toBe(false);
  });

  it('allows global unicast on any port, and refuses by default with no list', () => {
    expect(policy.check('8.8.8.8', 25).allowed).toBe(true);
    expect(new NetworkPolicy().check('10.0.0.1', 80).allowed).toBe(false);
    expect(new NetworkPolicy().check('nonsense', 80)).toEqual({
      allowed: false,
      reason: 'not an IP address',
      allow: null,
    });
  });

  it('names the entry that would allow a refused address, in the spelling the list takes', () => {
    const allowOf = (address: string, port: number) => {
      const verdict = policy.check(address, port);
      return verdict.allowed ? 'allowed' : verdict.allow;
    };
    expect(allowOf('10.0.0.1', 80)).toBe('allowed');
    expect(allowOf('172.16.0.1', 80)).toEqual({
      entry: '172.16.0.1/32:80',
      port: 80,
      otherPortsListed: false,
    });
    expect(allowOf('::1', 9090)).toEqual({ entry: '[::1]/128:9090', port: 9090, otherPortsListed: true });
    expect(allowOf('fe80::1%eth0', 80)).toEqual({
      entry: '[fe80::1]/128:80',
      port: 80,
      otherPortsListed: false,
    });
    expect(allowOf('FD00:0:0:0:0:0:0:A', 80)).toMatchObject({ entry: '[fd00::a]/128:80' });
    // A mapped address is listed (and so named) as the IPv4 host it is.
    expect(allowOf('::ffff:127.0.0.1', 9090)).toMatchObject({
      entry: '127.0.0.1/32:9090',
      otherPortsListed: true,
    });
    expect(allowOf('::ffff:192.168.9.9', 80)).toMatchObject({
      entry: '192.168.9.9/32:80',
      otherPortsListed: true,
    });
    // Each entry it names parses, and lets that address and port through.
    for (const [address, port] of [
      ['172.16.0.1', 80],
      ['fe80::1', 80],
      ['::ffff:127.0.0.1', 9090],
    ] as const) {
      const verdict = policy.check(address, port);
      const entry = verdict.allowed ? '' : (verdict.allow?.entry ?? '');
      expect(new NetworkPolicy(parseAllowList(entry)).check(address, port)).toEqual({ allowed: true });
    }
  });
});

describe('blockedError', () => {
  const policy = new NetworkPolicy(parseAllowList('127.0.0.1/32:8080'));
  const detailOf = (address: string, port: number, host: string, via: 'literal' | 'dns') => {
    const verdict = policy.check(address, port);
    if (verdict.allowed) throw new Error(`${address}:${port} was allowed`);
    return errorResponse(blockedError(host, verdict, via)).body.error;
  };

  it('names WEBCAP_ALLOW_PRIVATE and the entry for an IP literal', () => {
    expect(detailOf('10.1.2.3', 8080, '10.1.2.3', 'literal')).toBe(
      'Bad Request: blocked by the network policy: 10.1.2.3 is a private address (RFC 1918); allow it with WEBCAP_ALLOW_PRIVATE=10.1.2.3/32:8080',
    );
  });

  it('says the port is what is missing when the address is listed on another port', () => {
    expect(detailOf('127.0.0.1', 9090, '127.0.0.1', 'literal')).toBe(
      'Bad Request: blocked by the network policy: 127.0.0.1 is allowed by WEBCAP_ALLOW_PRIVATE but not on port 9090; add 127.0.0.1/32:9090',
    );
  });

  it('never names the address a host name resolved to', () => {
    const refused = detailOf('10.1.2.3', 8080, 'intranet.example', 'dns');
    expect(refused).toBe(
      'Bad Request: blocked by the network policy: intranet.example resolves to a private address (RFC 1918); allow that address on port 8080 with WEBCAP_ALLOW_PRIVATE',
    );
    const otherPort = detailOf('127.0.0.1', 9090, 'rebind.example', 'dns');
    expect(otherPort).toBe(
      'Bad Request: blocked by the network policy: rebind.example resolves to an address allowed by WEBCAP_ALLOW_PRIVATE but not on port 9090; add that address with :9090',
    );
    expect(`${refused} ${otherPort}`).not.toMatch(/10\.1\.2\.3|127\.0\.0\.1/);
  });
});
