import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { processTree } from '../src/browser/process-tree.js';
import { loadConfig } from '../src/config.js';
import { CloseError } from '../src/lifecycle.js';
import { createLogger } from '../src/logging.js';
import { createRuntime } from '../src/runtime.js';
import { isAlive } from './helpers/chromium.js';
import { databaseEnv, dropDatabase, freshDatabase, tempDir } from './helpers/databases.js';
import { browserPid } from './helpers/runtime.js';

/**
 * How many handles of each kind keep the process alive: sockets, servers, pipes, child processes.
 * Timers are left out: the test runner's own come and go (the runtime's periodic ones are unref'd).
 */
function liveHandles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind !== 'Timeout') counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

/**
 * Waits until the check holds, for at most about ten seconds: a closed socket or server leaves
 * the list of handles once the event loop has run its close callbacks, and a killed process once
 * it is reaped. (vi.waitFor would count its own timer among the handles.)
 */
async function settled(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
}
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

// PostgreSQL, so that the database is sockets a leak would leave open.
describe('the runtime on PostgreSQL: what it opens, it closes', () => {
  const dataDir = tempDir();
  const database = freshDatabase('postgres', dataDir);
  const config = loadConfig({ ...databaseEnv(database, dataDir), LOG_LEVEL: 'silent' });
  const logger = createLogger('silent');
  afterAll(() => dropDatabase(database));

  it('a start that fails in its last phase closes what the earlier phases opened, and rethrows', async () => {
    // A database whose jobs table is gone: the stores, the network guard's proxy and the HTTP app
    // open, then recovering this process's interrupted jobs (the last step) fails.
    await (await createRuntime(config, { logger })).close();
    if (database.kind !== 'postgres') throw new Error('unreachable');
    const beforeClient = liveHandles();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(`DROP TABLE "${database.schema}".jobs CASCADE`);
    await client.end();
    // end() resolves before the client's socket leaves the list of handles: counted then, it was
    // in `before` and gone after the start, which is not what this test is about.
    await settled(() => same(liveHandles(), beforeClient));

    const before = liveHandles();
    await expect(createRuntime(config, { logger })).rejects.toThrow(/jobs/);
    await settled(() => same(liveHandles(), before));
    expect(liveHandles()).toEqual(before);
  });

  it('close runs every closer when one fails, and names the one that failed', async () => {
    const fresh = freshDatabase('postgres', dataDir);
    const before = liveHandles();
    // Logged at info, where the browser's launch names its pid.
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const runtime = await createRuntime(loadConfig({ ...databaseEnv(fresh, dataDir), LOG_LEVEL: 'silent' }), {
      logger: createLogger('info', sink),
    });
    try {
      await runtime.warmUp();
      const browser = await browserPid(runtime, lines);
      const tree = await processTree(browser);
      // Jobs close before the browser, the extractors and the stores.
      vi.spyOn(runtime.jobs, 'close').mockRejectedValueOnce(new Error('stuck'));

      const closing = runtime.close();
      await expect(closing).rejects.toThrow(CloseError);
      await expect(closing).rejects.toThrow('closing failed: jobs (stuck)');
      await settled(() => tree.every((pid) => !isAlive(pid)) && same(liveHandles(), before));
      expect(tree.filter(isAlive)).toEqual([]);
      expect(liveHandles()).toEqual(before);
    } finally {
      await dropDatabase(fresh);
    }
  });
});
