import { runWebcap } from '../../src/cli/program.js';
import { loadConfig } from '../../src/config.js';
import type { CliResult } from './cli.js';

/**
 * Runs `webcap ARGS` in this process, configured by `env` alone as runCli's process would be:
 * the same program, exit codes and output, without a process start per command.
 */
export async function webcap(
  args: readonly string[],
  env: Record<string, string>,
  stdin = '',
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runWebcap(args, () => loadConfig(env), {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stdin: async () => stdin,
  });
  return { code, stdout, stderr };
}

/** Runs `webcap ARGS --json` in this process and parses what it prints; fails loudly when it does not exit 0. */
export async function webcapJson<T = Record<string, unknown>>(
  args: readonly string[],
  env: Record<string, string>,
  stdin = '',
): Promise<T> {
  const result = await webcap([...args, '--json'], env, stdin);
  if (result.code !== 0) throw new Error(`webcap ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
