import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { Account } from './accounts.js';

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
 */
export class RateCaps {
  private readonly limiters: Record<CapName, RateLimiterAbstract>;

  constructor(redis: Redis | null) {
    const make = (keyPrefix: string, duration: number) =>
      redis === null
        ? new RateLimiterMemory({ keyPrefix, points: Number.MAX_SAFE_INTEGER, duration })
        : new RateLimiterRedis({ storeClient: redis, keyPrefix, points: Number.MAX_SAFE_INTEGER, duration });
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
