import type { Config } from '../config.js';
import { buildOrUnwind } from '../lifecycle.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../runtime.js';
import { setHeapGrowth } from './heap-growth.js';

/**
 * Starts a runtime and runs what a command does with it before it serves (bootstrap, listen);
 * when that throws, the runtime is closed before the error goes on to the command line.
 */
export function withRuntime(
  config: Config,
  options: RuntimeOptions,
  start: (runtime: Runtime) => Promise<void>,
): Promise<void> {
  // What the service creates is owner-only whatever the shell's umask; modes are also set on
  // every create (src/store/private-files.ts), and this covers what a library creates itself.
  process.umask(0o077);
  setHeapGrowth(config.heapGrowingPercent);
  return buildOrUnwind(
    async (closers) => {
      const runtime = await createRuntime(config, options);
      closers.add('runtime', () => runtime.close());
      await start(runtime);
    },
    (error) => process.stderr.write(`webcap: ${error instanceof Error ? error.message : String(error)}\n`),
  );
}
