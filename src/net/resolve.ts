import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { WebcapError } from '../errors.js';
import { blockedError, type NetworkPolicy } from './address-policy.js';
import { unreachable } from './net-error.js';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Every address of a host name; rejects like dns.lookup. Tests inject one that answers what they need. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The operating system's resolver (getaddrinfo: /etc/hosts, then DNS), all addresses in its order. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/**
 * Resolves `host` once and checks every address for `port`: one refused address refuses the host
 * (a name with a public and a private record is refused), so whichever the connection would pick
 * is safe. Returns the checked addresses, the only ones a connection may use (see pinnedLookup).
 * Throws 'blocked' for a refused address, 'target_unreachable' when the name does not resolve.
 */
export async function resolvePinned(
  host: string,
  port: number,
  policy: NetworkPolicy,
  resolver: Resolver = systemResolver,
): Promise<readonly ResolvedAddress[]> {
  const family = isIP(host);
  if (family !== 0) {
    const verdict = policy.check(host, port);
    if (!verdict.allowed) throw blockedError(host, verdict, 'literal');
    return [{ address: host, family: family === 6 ? 6 : 4 }];
  }
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await resolver(host);
  } catch (error) {
    throw unreachable(error);
  }
  if (addresses.length === 0) throw new WebcapError('target_unreachable', 'host has no address');
  for (const { address } of addresses) {
    const verdict = policy.check(address, port);
    if (!verdict.allowed) throw blockedError(host, verdict, 'dns');
  }
  return addresses;
}

function wantedFamily(family: number | string | undefined): 4 | 6 | null {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return null;
}

/**
 * A `lookup` for net.connect/tls.connect (and undici's connector) that answers `host` with the
 * addresses resolvePinned checked, never asking DNS again: the connection goes where the check
 * looked, so a rebinding DNS answer cannot slip in between. Node skips `lookup` for an IP literal
 * host, which resolvePinned has checked itself.
 */
export function pinnedLookup(host: string, addresses: readonly ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const family = wantedFamily(options.family);
    const usable = addresses.filter((entry) => family === null || entry.family === family);
    const first = usable[0];
    if (hostname !== host || first === undefined) {
      const error: NodeJS.ErrnoException = new Error(`no checked address for ${hostname}`);
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
    } else if (options.all) {
      callback(
        null,
        usable.map(({ address, family }) => ({ address, family })),
      );
    } else {
      callback(null, first.address, first.family);
    }
  };
}
