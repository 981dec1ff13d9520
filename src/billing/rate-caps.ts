import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Clock } from '../clock.js';
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

/** When each window a call took a slot in ends (clock milliseconds): its slots are given back only to those. */
export type CapSlots = Readonly<Partial<Record<CapName, number>>>;

export type CapResult =
  | { readonly ok: true; readonly slots: CapSlots }
  | {
      readonly ok: false;
      readonly cap: CapName;
      readonly limit: number;
      /** Milliseconds until the window frees a slot. */
      readonly resetMs: number;
    };

/** A key's count in its current window, and the milliseconds until that window ends. */
interface WindowCount {
  readonly count: number;
  readonly msBeforeNext: number;
}

/**
 * Counts per key in fixed windows of `durationMs`, each starting at the key's first count after
 * the last one ended, as rate-limiter-flexible's memory store does, but on the injected clock
 * (tests move time instead of waiting out a window). Ended windows are dropped once per window.
 */
class MemoryWindows {
  private readonly windows = new Map<string, { count: number; endsAtMs: number }>();
  private sweepAtMs = 0;

  constructor(
    private readonly durationMs: number,
    private readonly clock: Clock,
  ) {}

  add(key: string, points: number): WindowCount {
    const nowMs = this.clock().getTime();
    if (nowMs >= this.sweepAtMs) {
      for (const [ended, window] of this.windows) if (window.endsAtMs <= nowMs) this.windows.delete(ended);
      this.sweepAtMs = nowMs + this.durationMs;
    }
    let window = this.windows.get(key);
    if (window === undefined || window.endsAtMs <= nowMs) {
      // A slot given back to no window of this store (taken in Redis before it went away, or in a
      // window since ended) belongs to no window that still counts: giving it to a new one would
      // start that window below zero, one call over the cap.
      if (points < 0) return { count: 0, msBeforeNext: 0 };
      window = { count: 0, endsAtMs: nowMs + this.durationMs };
      this.windows.set(key, window);
    }
    window.count += points;
    return { count: window.count, msBeforeNext: window.endsAtMs - nowMs };
  }
}

/**
 * The same windows in Redis, shared by every process; while Redis cannot answer, the process's
 * own memory windows count instead.
 */
class RedisWindows {
  private readonly limiter: RateLimiterRedis;

  constructor(
    redis: Redis,
    keyPrefix: string,
    durationSeconds: number,
    private readonly memory: MemoryWindows,
  ) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix,
      points: Number.MAX_SAFE_INTEGER,
      duration: durationSeconds,
      // Not connected: straight to the process's own count, without waiting for a reconnect.
      rejectIfRedisNotReady: true,
    });
  }

  async add(key: string, points: number): Promise<WindowCount> {
    try {
      const res =
        points >= 0 ? await this.limiter.consume(key, points) : await this.limiter.reward(key, -points);
      return { count: res.consumedPoints, msBeforeNext: res.msBeforeNext };
    } catch (error) {
      if (error instanceof RateLimiterRes)
        return { count: error.consumedPoints, msBeforeNext: error.msBeforeNext };
      return this.memory.add(key, points);
    }
  }
}

/**
 * Per-account caps on billable calls per second and per minute. The limit is the account's own
 * (it can change at any time), so the windows count without a ceiling and the comparison is
 * made here; a rejected or unbilled call gives its point back.
 *
 * With Redis, the counts are shared by every process. While Redis cannot answer (not connected,
 * or no answer within the client's command timeout), each process counts in its own memory
 * instead and enforces the same caps there, so calls go on being capped per process rather than
 * failing or going uncapped (docs/billing.md, "Caps when Redis is away").
 */
export class RateCaps {
  private readonly windows: Record<CapName, MemoryWindows | RedisWindows>;

  constructor(
    redis: Redis | null,
    private readonly clock: Clock,
  ) {
    const make = (keyPrefix: string, durationSeconds: number) => {
      const memory = new MemoryWindows(durationSeconds * 1000, clock);
      return redis === null ? memory : new RedisWindows(redis, keyPrefix, durationSeconds, memory);
    };
    this.windows = { per_second: make('webcap:cap:s', 1), per_minute: make('webcap:cap:m', 60) };
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
    const slots: Partial<Record<CapName, number>> = {};
    for (const [cap, limit] of this.caps(account)) {
      const res = await this.windows[cap].add(account.id, 1);
      taken.push(cap);
      slots[cap] = this.clock().getTime() + res.msBeforeNext;
      if (res.count > limit) {
        await Promise.all(taken.map((name) => this.windows[name].add(account.id, -1)));
        return { ok: false, cap, limit, resetMs: res.msBeforeNext };
      }
    }
    return { ok: true, slots };
  }

  /**
   * Gives back the slots of a call that was not billed, in the windows that still count them: a
   * call that outlived its window (a render of several seconds under a per-second cap) gives
   * nothing to the next window, which would otherwise allow one call over the cap.
   */
  async giveBack(account: Account, slots: CapSlots): Promise<void> {
    const nowMs = this.clock().getTime();
    await Promise.all(
      this.caps(account)
        .filter(([cap]) => (slots[cap] ?? 0) > nowMs)
        .map(([cap]) => this.windows[cap].add(account.id, -1)),
    );
  }
}
