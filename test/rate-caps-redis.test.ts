import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { Account } from '../src/billing/accounts.js';
import { capsRedisClient, RateCaps } from '../src/billing/rate-caps.js';

/*
 * The caps shared through a real Redis: a slot is given back only to the window it was taken in.
 * The Redis window expires in Redis's own time, so this test waits for it (past a 1 s window;
 * a slower machine only waits longer, which changes nothing).
 */
describe('rate caps in Redis', () => {
  const redis = capsRedisClient('redis://127.0.0.1:6379', 2000, pino({ level: 'silent' }));
  afterAll(() => redis.quit());

  it('a slot given back after its window ended gives no extra call in the next window', async () => {
    const caps = new RateCaps(redis, () => new Date());
    const one = { id: `acc_${randomUUID()}`, perSecond: 1, perMinute: null } as unknown as Account;
    const taken = await caps.take(one);
    if (!taken.ok) throw new Error('the first call was refused');
    expect((await caps.take(one)).ok).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await caps.giveBack(one, taken.slots);
    expect((await caps.take(one)).ok).toBe(true);
    expect((await caps.take(one)).ok).toBe(false);
  });
});
