import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { Account } from './accounts.js';

/**
 * The Redis client the caps count in. A command that cannot be sent at once (not connected) or
 * gets no answer within `commandTimeoutMs` fails rather than waits, and is not sent again after
 * a reconnect, so a call never waits on Redis longer than that and a call long answered is not
 * counted late. The connection is logged when it is ready, and an outage when it begins and ends.
 */
export function capsRedisClient(url: string, commandTimeoutMs: number, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  });
  let down = false;
  redis.on('ready', () => {
    logger.info(down ? 'redis reachable again; caps are shared again' : 'redis connected; caps are shared');
    down = false;
  });
  redis.on('error', (error: unknown) => {
    if (down) return;
    down = true;
    logger.warn({ err: error }, 'redis unreachable; caps are counted per process until it is back');
  });
  return redis;
}

export type CapName = 'per_second' | 'per_minute';

export type CapResult =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly cap: CapName;
      readonly limit: number;
      /** Milliseconds until the window frees a slot. */
      readonly resetMs: number;
    };

/**
 * Per-account caps on billable calls per second and per minute. The limit is the account's own
 * (it can change at any time), so the limiters count without a ceiling and the comparison is
 * made here; a rejected or unbilled call gives its point back.
 *
 * With Redis, the counts are shared by every process. While Redis cannot answer (not connected,
 * or no answer within the client's command timeout), each process counts in its own memory
 * instead and enforces the same caps there, so calls go on being capped per process rather than
 * failing or going uncapped (docs/billing.md, "Caps when Redis is away").
 */
export class RateCaps {
  private readonly limiters: Record<CapName, RateLimiterAbstract>;

  constructor(redis: Redis | null) {
    const make = (keyPrefix: string, duration: number) => {
      const memory = new RateLimiterMemory({ keyPrefix, points: Number.MAX_SAFE_INTEGER, duration });
      if (redis === null) return memory;
      return new RateLimiterRedis({
        storeClient: redis,
        keyPrefix,
        points: Number.MAX_SAFE_INTEGER,
        duration,
        // Not connected: straight to the process's own count, without waiting for a reconnect.
        rejectIfRedisNotReady: true,
        insuranceLimiter: memory,
      });
    };
    this.limiters = { per_second: make('webcap:cap:s', 1), per_minute: make('webcap:cap:m', 60) };
  }

  private caps(account: Account): [CapName, number][] {
    const caps: [CapName, number][] = [];
    if (account.perSecond !== null) caps.push(['per_second', account.perSecond]);
    if (account.perMinute !== null) caps.push(['per_minute', account.perMinute]);
    return caps;
  }

  /** Takes one slot in every cap the account has, or none when any cap is full. */
  async take(account: Account): Promise<CapResult> {
    const taken: CapName[] = [];
    for (const [cap, limit] of this.caps(account)) {
      const res = await this.limiters[cap].consume(account.id, 1).catch((error: unknown) => {
        if (error instanceof RateLimiterRes) return error;
        throw error;
      });
      taken.push(cap);
      if (res.consumedPoints > limit) {
        await Promise.all(taken.map((name) => this.limiters[name].reward(account.id, 1)));
        return { ok: false, cap, limit, resetMs: res.msBeforeNext };
      }
    }
    return { ok: true };
  }

  /** Gives back the slots of a call that was not billed. */
  async giveBack(account: Account): Promise<void> {
    await Promise.all(this.caps(account).map(([cap]) => this.limiters[cap].reward(account.id, 1)));
  }
}
