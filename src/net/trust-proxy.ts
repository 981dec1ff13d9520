import net from 'node:net';

/**
 * Which peers' X-Forwarded-For and X-Forwarded-Proto webcap believes (TRUST_PROXY), in the form
 * Fastify's trustProxy takes: false (none: a client's address is its connection's), a number of
 * proxy hops in front of webcap, or the addresses and CIDR ranges of the proxies.
 */
export type TrustProxy = false | number | readonly string[];

/** An address or CIDR range (`10.0.0.0/8`, `fd00::/8`), as proxy-addr reads them. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** TRUST_PROXY's text as a TrustProxy; undefined when it is none of the forms. */
export function parseTrustProxy(raw: string): TrustProxy | undefined {
  const text = raw.trim();
  if (text === '' || text === 'false') return false;
  if (/^\d{1,2}$/.test(text)) {
    const hops = Number(text);
    return hops >= 1 && hops <= 10 ? hops : undefined;
  }
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.length > 100 || !entries.every(isAddressOrRange)) return undefined;
  return entries;
}
