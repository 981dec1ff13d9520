import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLogger } from './lazy-child-logger.js';

function recorded() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const parent = pino({ level: 'info' }, stream);
  let children = 0;
  const child = parent.child.bind(parent);
  parent.child = ((...args: Parameters<typeof child>) => {
    children += 1;
    return child(...args);
  }) as typeof parent.child;
  return { parent, lines, children: () => children };
}

describe('lazyChildLogger', () => {
  it('makes the child only when something is logged, with the bindings and options given', async () => {
    const { parent, lines, children } = recorded();
    const log = lazyChildLogger(parent, { reqId: 'r-1' }, { level: 'warn' });
    expect(log.level).toBe('warn');
    expect(children()).toBe(0);
    log.info('below the level');
    log.error({ status: 500 }, 'request failed');
    await new Promise((resolve) => setImmediate(resolve));
    expect(children()).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId: 'r-1', status: 500, msg: 'request failed', level: 50 });
  });

  it("takes the parent's level when the request sets none", () => {
    const { parent } = recorded();
    expect(lazyChildLogger(parent, { reqId: 'r-2' }, {}).level).toBe('info');
  });
});
