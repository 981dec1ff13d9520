import { describe, expect, it } from 'vitest';
import { buildOrUnwind, CloseError, Closers } from './lifecycle.js';

describe('Closers', () => {
  it('closes latest first, each once however often close is called', async () => {
    const closed: string[] = [];
    const closers = new Closers();
    for (const name of ['store', 'pool', 'app']) closers.add(name, () => closed.push(name));
    await Promise.all([closers.close(), closers.close()]);
    await closers.close();
    expect(closed).toEqual(['app', 'pool', 'store']);
    expect(() => closers.add('late', () => undefined)).toThrow('late was opened while closing');
  });

  it('runs every closer when some fail, then names those that failed', async () => {
    const closed: string[] = [];
    const closers = new Closers();
    closers.add('store', () => closed.push('store'));
    closers.add('pool', async () => {
      throw new Error('browser gone');
    });
    closers.add('jobs', () => {
      throw new Error('stuck');
    });
    closers.add('app', () => closed.push('app'));
    const error = await closers.close().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(closed).toEqual(['app', 'store']);
    expect(error).toBeInstanceOf(CloseError);
    expect((error as CloseError).message).toBe('closing failed: jobs (stuck), pool (browser gone)');
    expect((error as CloseError).failures.map((failure) => failure.name)).toEqual(['jobs', 'pool']);
  });
});

describe('buildOrUnwind', () => {
  it('returns what the build made, leaving it open', async () => {
    const closed: string[] = [];
    const built = await buildOrUnwind(
      async (closers) => {
        closers.add('store', () => closed.push('store'));
        return 'runtime';
      },
      () => undefined,
    );
    expect(built).toBe('runtime');
    expect(closed).toEqual([]);
  });

  it('closes what a failed build opened, latest first, and rethrows its error, not a closer’s', async () => {
    const closed: string[] = [];
    const closeErrors: unknown[] = [];
    const build = buildOrUnwind(
      async (closers) => {
        closers.add('store', () => closed.push('store'));
        closers.add('guard', () => {
          throw new Error('proxy stuck');
        });
        closers.add('pool', () => closed.push('pool'));
        throw new Error('port taken');
      },
      (error) => closeErrors.push(error),
    );
    await expect(build).rejects.toThrow('port taken');
    expect(closed).toEqual(['pool', 'store']);
    expect(closeErrors).toEqual([expect.any(CloseError)]);
  });
});
