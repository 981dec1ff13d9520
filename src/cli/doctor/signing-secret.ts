import net from 'node:net';
import type { Config } from '../../config.js';
import { type Check, ok, warn } from './check.js';

/** Loopback hosts: a service listening there is reached from this machine only. */
function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return net.isIPv4(host) && host.startsWith('127.');
}

/**
 * Why this configuration looks like production (reached from elsewhere, or several processes
 * sharing a database), or null for a single process on this machine. Config has no production
 * flag; these are what a deployment sets and a newcomer's first start does not.
 */
function productionSigns(config: Config): string | null {
  const signs = [
    isLoopback(config.host) ? null : `HOST=${config.host}`,
    config.database.kind === 'postgres' ? 'DATABASE_URL' : null,
    config.redisUrl === null ? null : 'REDIS_URL',
    config.publicBaseUrl === null ? null : 'PUBLIC_BASE_URL',
  ].filter((sign) => sign !== null);
  return signs.length === 0 ? null : signs.join(', ');
}

/** WEBCAP_SIGNING_SECRET: a generated one is fine for one process here, a warning for a deployment. */
export function signingSecretCheck(config: Config): Check {
  const name = 'signing secret';
  return {
    name,
    async run() {
      if (config.signingSecret !== null) return ok(name, 'WEBCAP_SIGNING_SECRET is set');
      const signs = productionSigns(config);
      const generated = 'unset: one is generated once and kept in the database';
      if (signs === null) return ok(name, `${generated} (enough for one process on this machine)`);
      return warn(
        name,
        `${generated}, and ${signs} say this is a deployment: a copy of the database then holds the key to hosted links and sealed job parameters`,
        'set WEBCAP_SIGNING_SECRET=$(openssl rand -hex 32), the same on every process sharing the database (links handed out before stop working)',
      );
    },
  };
}
