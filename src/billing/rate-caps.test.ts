import { describe, expect, it } from 'vitest';
import type { Account } from './accounts.js';
import { RateCaps } from './rate-caps.js';

const account = (perSecond: number): Account =>
  ({ id: 'acc_1', perSecond, perMinute: null }) as unknown as Account;

describe('rate caps in process memory', () => {
  it('a slot given back within its window frees it for the next call', async () => {
    const caps = new RateCaps(null, () => new Date(3_000_000));
    const one = account(1);
    const taken = await caps.take(one);
    if (!taken.ok) throw new Error('the first call was refused');
    expect((await caps.take(one)).ok).toBe(false);
    await caps.giveBack(one, taken.slots);
    expect((await caps.take(one)).ok).toBe(true);
  });

  it('counts a window on the injected clock and refuses the call past the cap', async () => {
    let nowMs = 1_000_000;
    const caps = new RateCaps(null, () => new Date(nowMs));
    const two = account(2);
    expect((await caps.take(two)).ok).toBe(true);
    expect((await caps.take(two)).ok).toBe(true);
    expect(await caps.take(two)).toEqual({ ok: false, cap: 'per_second', limit: 2, resetMs: 1000 });
    nowMs += 1000;
    expect((await caps.take(two)).ok).toBe(true);
  });

  it('a slot given back after its window ended gives no extra call in the next window', async () => {
    let nowMs = 2_000_000;
    const caps = new RateCaps(null, () => new Date(nowMs));
    const one = account(1);
    const taken = await caps.take(one);
    if (!taken.ok) throw new Error('the first call was refused');
    // The call outlived its window and was not billed.
    nowMs += 1500;
    await caps.giveBack(one, taken.slots);
    expect((await caps.take(one)).ok).toBe(true);
    expect((await caps.take(one)).ok).toBe(false);
  });
});
