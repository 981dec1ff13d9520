import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The files that start `webcap` processes (test/helpers/cli.ts), which run the build in dist/. */
const PROCESS_TESTS = ['test/cli.test.ts', 'test/browser-pool.test.ts', 'test/*-processes.test.ts'];

/**
 * Tests next to the code that start processes of their own (extractor processes run out of heap
 * on purpose): in a process per file with the integration files, so that the unit project, and
 * `npm run test:fast`, stays pure logic.
 */
const SRC_PROCESS_TESTS = ['src/engines/extractors/pool.test.ts'];

/**
 * The files that build and run the container image (podman, minutes on a fresh machine): a project
 * of their own, in the run only when WEBCAP_CONTAINER_TESTS=1 (`npm run test:containers`).
 */
const CONTAINER_TESTS = 'test/containers/**/*.test.ts';
const WITH_CONTAINERS = process.env.WEBCAP_CONTAINER_TESTS === '1';

/** Where each project's files join the one queue of files the workers take from. */
const PROJECT_ORDER = ['processes', 'integration', 'unit'];

/**
 * Files much slower than their size says, queued before all others: without durations of its own
 * (a fresh clone), vitest queues the largest files first, and this one, queued late, ended a full
 * run 26 s after every other file (its twenty calls in a row take 45 s alone, 105 s beside the
 * others; test-results.json has each file's duration).
 */
const LONGEST_FILES = ['test/extraction-limits.test.ts'];

/**
 * vitest's order within a project (the slowest of the last run first, or the largest file first
 * without one), with the projects in PROJECT_ORDER rather than by name: the files that wait
 * longest on what they start go first and the short unit files fill the end. LONGEST_FILES lead.
 */
class ProjectsInOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) =>
      LONGEST_FILES.some((longest) => file.moduleId.endsWith(`/${longest}`))
        ? -1
        : PROJECT_ORDER.indexOf(file.project.name);
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  // Tests run the SDK's sources; the processes project's `webcap` processes run its build (dist/).
  resolve: {
    alias: { '@webcap/sdk': fileURLToPath(new URL('clients/typescript/src/index.ts', import.meta.url)) },
  },
  test: {
    setupFiles: ['test/setup.ts'],
    // Only a hang reaches these: on a loaded 2-core machine (load average 13-25) a healthy test took
    // several times its idle duration, and 30 s was reached (issue 32). Waits inside tests are
    // bounded by test/helpers/waits.ts's HANG_MS, below these.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // Most files spend their time waiting on Chromium, the databases and the processes they
    // start, not on the CPU: two files per core keep the cores busy (vitest's default, one less
    // than the cores, ran the whole suite one file at a time on two cores).
    maxWorkers: 2 * availableParallelism(),
    sequence: { sequencer: ProjectsInOrder },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/helpers/**/*.test.ts', 'console/src/**/*.test.ts'],
          exclude: [...SRC_PROCESS_TESTS],
          // Pure logic: threads start faster than processes.
          pool: 'threads',
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', ...SRC_PROCESS_TESTS],
          exclude: [...PROCESS_TESTS, 'test/helpers/**', CONTAINER_TESTS],
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
      ...(WITH_CONTAINERS
        ? [
            {
              extends: true as const,
              test: {
                name: 'containers',
                include: [CONTAINER_TESTS],
                pool: 'forks' as const,
                globalSetup: ['test/containers/build-images.ts'],
                // The first build of the image: base images, apt and npm inside, about 6-7 minutes.
                hookTimeout: 30 * 60_000,
              },
            },
          ]
        : []),
    ],
  },
});
