import { describe, expect, it } from 'vitest';
import type { Check } from './check.js';
import { runChecks } from './run-checks.js';

/*
 * The bound around every check: one that never reports is failed after its bound and a grace,
 * what it opened is closed, and a close that never ends does not hold the report back. The waits
 * are the subject here: nothing is asserted about how long they took.
 */
describe('runChecks', () => {
  it('fails a check that never reports, and closes what it opened', async () => {
    let closed = false;
    const stalls: Check = {
      name: 'stalls',
      run: ({ closers }) => {
        closers.add('thing', () => {
          closed = true;
        });
        return new Promise(() => undefined);
      },
    };
    const answers: Check = {
      name: 'answers',
      run: async () => ({ name: 'answers', status: 'ok', detail: 'fine', fix: null }),
    };
    expect(await runChecks([stalls, answers], 100)).toEqual([
      {
        name: 'stalls',
        status: 'fail',
        detail: 'no verdict within 100 ms',
        fix: 'see why it stalls; --timeout-ms gives every check longer',
      },
      { name: 'answers', status: 'ok', detail: 'fine', fix: null },
    ]);
    expect(closed).toBe(true);
  });

  it('reports a check that throws, and lets go of a close that never ends', async () => {
    const throws: Check = {
      name: 'throws',
      run: async ({ closers }) => {
        closers.add('stuck', () => new Promise(() => undefined));
        throw new Error('boom');
      },
    };
    expect(await runChecks([throws], 100)).toEqual([
      {
        name: 'throws',
        status: 'fail',
        detail: 'the check itself failed: boom',
        fix: 'report it as a bug of webcap doctor, with this line',
      },
    ]);
  });
});
