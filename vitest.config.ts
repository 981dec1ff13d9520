import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** The files that start `webcap` processes (test/helpers/cli.ts), which run the build in dist/. */
const PROCESS_TESTS = ['test/cli.test.ts', 'test/browser-pool.test.ts', 'test/*-processes.test.ts'];

export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Most files spend their time waiting on Chromium, the databases and the processes they
    // start, not on the CPU: two files per core keep the cores busy (vitest's default, one less
    // than the cores, ran the whole suite one file at a time on two cores).
    maxWorkers: 2 * availableParallelism(),
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/helpers/**/*.test.ts'],
          // Pure logic: threads start faster than processes.
          pool: 'threads',
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...PROCESS_TESTS, 'test/helpers/**'],
          // A process per file: Chromium, servers and native modules, and nothing left between files.
          pool: 'forks',
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: PROCESS_TESTS,
          pool: 'forks',
          globalSetup: ['test/helpers/built-dist.ts'],
        },
      },
    ],
  },
});
