import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { WebcapError } from '../errors.js';
import { NetworkPolicy, parseAllowList } from './address-policy.js';
import {
  pinnedLookup,
  type ResolvedAddress,
  type Resolver,
  resolvePinned,
  systemResolver,
} from './resolve.js';

const policy = new NetworkPolicy(parseAllowList('127.0.0.1/32:8081'));

/** A resolver answering from a table, counting its calls; unknown names fail like getaddrinfo. */
function tableResolver(table: Record<string, readonly string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string): Promise<readonly ResolvedAddress[]> => {
    calls.push(hostname);
    const answers = table[hostname];
    if (answers === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { calls });
}

async function failure(attempt: Promise<unknown>): Promise<WebcapError> {
  const error = await attempt.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error instanceof WebcapError) return error;
  throw new Error(`expected a WebcapError, got ${String(error)}`);
}

describe('resolvePinned', () => {
  const resolver = tableResolver({
    'public.example': ['93.184.216.34', '2606:2800:220:1::1'],
    'rebind.example': ['127.0.0.1'],
    'mixed.example': ['93.184.216.34', '10.0.0.7'],
    'mixed6.example': ['2606:2800:220:1::1', 'fd00::7'],
    'mapped.example': ['::ffff:169.254.169.254'],
    'fixture.example': ['127.0.0.1'],
    'empty.example': [],
  });

  it('returns every address of a public name, resolving it once', async () => {
    resolver.calls.length = 0;
    const addresses = await resolvePinned('public.example', 443, policy, resolver);
    expect(addresses).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    expect(resolver.calls).toEqual(['public.example']);
  });

  it('refuses a public-looking name that resolves to a private address, without naming the address', async () => {
    const error = await failure(resolvePinned('rebind.example', 80, policy, resolver));
    expect(error).toMatchObject({
      code: 'blocked',
      detail:
        'rebind.example resolves to an address allowed by WEBCAP_ALLOW_PRIVATE but not on port 80; add that address with :80',
    });
  });

  it('refuses a name with one public and one private record', async () => {
    expect((await failure(resolvePinned('mixed.example', 80, policy, resolver))).detail).toBe(
      'mixed.example resolves to a private address (RFC 1918); allow that address on port 80 with WEBCAP_ALLOW_PRIVATE',
    );
    expect((await failure(resolvePinned('mixed6.example', 80, policy, resolver))).detail).toBe(
      'mixed6.example resolves to a unique local address; allow that address on port 80 with WEBCAP_ALLOW_PRIVATE',
    );
    expect((await failure(resolvePinned('mapped.example', 80, policy, resolver))).code).toBe('blocked');
  });

  it('applies the allow list with the port', async () => {
    expect(await resolvePinned('fixture.example', 8081, policy, resolver)).toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
    expect((await failure(resolvePinned('fixture.example', 8082, policy, resolver))).detail).toBe(
      'fixture.example resolves to an address allowed by WEBCAP_ALLOW_PRIVATE but not on port 8082; add that address with :8082',
    );
  });

  it('checks an IP literal without asking the resolver', async () => {
    resolver.calls.length = 0;
    expect(await resolvePinned('8.8.8.8', 53, policy, resolver)).toEqual([{ address: '8.8.8.8', family: 4 }]);
    expect((await failure(resolvePinned('::1', 80, policy, resolver))).detail).toBe(
      '::1 is a loopback address; allow it with WEBCAP_ALLOW_PRIVATE=[::1]/128:80',
    );
    expect(resolver.calls).toEqual([]);
  });

  it('calls a name that does not resolve unreachable', async () => {
    expect(await failure(resolvePinned('nx.example', 80, policy, resolver))).toMatchObject({
      code: 'target_unreachable',
      detail: 'host not found (ENOTFOUND)',
    });
    expect(await failure(resolvePinned('empty.example', 80, policy, resolver))).toMatchObject({
      code: 'target_unreachable',
      detail: 'host has no address',
    });
  });

  it('refuses localhost through the system resolver', async () => {
    const noList = new NetworkPolicy();
    expect((await failure(resolvePinned('localhost', 80, noList, systemResolver))).detail).toBe(
      'localhost resolves to a loopback address; allow that address on port 80 with WEBCAP_ALLOW_PRIVATE',
    );
  });
});

describe('pinnedLookup', () => {
  const addresses: ResolvedAddress[] = [
    { address: '93.184.216.34', family: 4 },
    { address: '2606:2800:220:1::1', family: 6 },
  ];
  const lookup = pinnedLookup('public.example', addresses);

  function ask(hostname: string, options: Parameters<typeof lookup>[1]) {
    return new Promise<{
      error: NodeJS.ErrnoException | null;
      address: string | LookupAddress[];
      family?: number;
    }>((resolve) =>
      lookup(hostname, options, (error, address, family) => resolve({ error, address, family })),
    );
  }

  it('answers only with the checked addresses, filtered by family', async () => {
    expect(await ask('public.example', {})).toMatchObject({
      error: null,
      address: '93.184.216.34',
      family: 4,
    });
    expect(await ask('public.example', { all: true })).toMatchObject({ address: addresses });
    expect(await ask('public.example', { family: 6 })).toMatchObject({ address: '2606:2800:220:1::1' });
    expect(await ask('public.example', { family: 6, all: true })).toMatchObject({
      address: [{ address: '2606:2800:220:1::1', family: 6 }],
    });
  });

  it('refuses any other name, and a family it has no address of', async () => {
    expect((await ask('other.example', {})).error?.code).toBe('ENOTFOUND');
    const v4only = pinnedLookup('v4.example', [{ address: '93.184.216.34', family: 4 }]);
    const answer = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      v4only('v4.example', { family: 6 }, (error) => resolve(error)),
    );
    expect(answer?.code).toBe('ENOTFOUND');
  });
});
