import { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { type Check, fail, messageOf, ok, warn } from './check.js';
import { NoAnswer, within } from './deadline.js';
import { redactUrl } from './redact-url.js';

/** BullMQ refuses older servers (bullmq's RedisConnection.minimumVersion). */
const REDIS_MIN_VERSION = [5, 0, 0] as const;

function versionBelow(version: string, minimum: readonly number[]): boolean {
  const parts = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < minimum.length; i++) {
    const have = parts[i] ?? 0;
    const need = minimum[i] ?? 0;
    if (have !== need) return have < need;
  }
  return false;
}

function infoField(info: string, field: string): string | undefined {
  return new RegExp(`^${field}:(\\S+)`, 'm').exec(info)?.[1];
}

/** REDIS_URL, when set: reachable, recent enough for BullMQ, and not evicting keys. */
export function redisCheck(config: Config): Check {
  const name = 'redis';
  const url = config.redisUrl;
  return {
    name,
    async run({ timeoutMs, closers }) {
      if (url === null) {
        return ok(name, 'REDIS_URL unset: rate caps are counted per process, async jobs run in this process');
      }
      const where = redactUrl(url);
      const redis = new Redis(url, {
        lazyConnect: true,
        connectTimeout: timeoutMs,
        commandTimeout: timeoutMs,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        // One attempt: a doctor reports, it does not wait for Redis to come back.
        retryStrategy: () => null,
        // Its INFO would not be bounded by commandTimeout; the INFO below is.
        enableReadyCheck: false,
      });
      // The connection's own error (refused, unknown host) says more than the "Connection is
      // closed" that the connect under way then rejects with.
      let connectionError: unknown;
      redis.on('error', (error) => {
        connectionError ??= error;
      });
      closers.add('redis', () => redis.disconnect());
      let info: string;
      try {
        // One bound for both: ioredis's own timeouts apply to each step apart.
        info = await within(
          timeoutMs,
          redis.connect().then(() => redis.info()),
        );
      } catch (error) {
        const message = messageOf(connectionError ?? error);
        if (/NOAUTH|WRONGPASS|invalid password|invalid username/i.test(message)) {
          return fail(
            name,
            `${where}: ${message}`,
            'put the user and password in REDIS_URL (redis://user:password@host:port)',
          );
        }
        if (error instanceof NoAnswer || /timeout|timed out/i.test(message)) {
          return fail(
            name,
            `${where}: no answer within ${timeoutMs} ms`,
            'check that REDIS_URL names a Redis server reachable from this machine (address, port, firewall)',
          );
        }
        return fail(
          name,
          `${where}: ${message}`,
          'start Redis there, correct REDIS_URL, or unset it to keep caps and jobs in this process',
        );
      }
      const version = infoField(info, 'valkey_version') ?? infoField(info, 'redis_version') ?? 'unknown';
      if (version !== 'unknown' && versionBelow(version, REDIS_MIN_VERSION)) {
        return fail(
          name,
          `${where}: Redis ${version}; the job queue (BullMQ) needs 5.0 or later`,
          'upgrade Redis to 6.2 or later',
        );
      }
      const policy = infoField(info, 'maxmemory_policy');
      if (policy !== undefined && policy !== 'noeviction') {
        return warn(
          name,
          `${where}: Redis ${version} evicts keys under memory pressure (maxmemory-policy ${policy}): queued jobs could vanish`,
          'redis-cli -u "$REDIS_URL" config set maxmemory-policy noeviction, and set it in redis.conf',
        );
      }
      return ok(name, `${where}: Redis ${version}`);
    },
  };
}
