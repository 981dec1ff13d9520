import { describe, expect, it } from 'vitest';
import { loadOnce } from './load-once.js';

describe('loadOnce', () => {
  it('loads at the first call and keeps the value; calls during the load share it', async () => {
    let loads = 0;
    const load = loadOnce(async () => {
      loads += 1;
      return { loaded: loads };
    });
    const [first, second] = await Promise.all([load(), load()]);
    expect(first).toBe(second);
    expect(await load()).toBe(first);
    expect(loads).toBe(1);
  });

  it('forgets a failed load: the next call loads again, and keeps what succeeds', async () => {
    let loads = 0;
    const load = loadOnce(async () => {
      loads += 1;
      if (loads === 1) throw new Error('the assets could not be read');
      return `loaded on attempt ${loads}`;
    });
    await expect(load()).rejects.toThrow('the assets could not be read');
    expect(await load()).toBe('loaded on attempt 2');
    expect(await load()).toBe('loaded on attempt 2');
    expect(loads).toBe(2);
  });
});
