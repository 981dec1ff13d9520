import { Command, CommanderError } from 'commander';
import { type Config, ConfigError } from '../config.js';
import { errorResponse, WebcapError } from '../errors.js';
import { adminCommand, type Write } from './admin.js';

/** Where the program writes: process.stdout and process.stderr in the process, buffers in tests. */
export interface CliOutput {
  readonly stdout: Write;
  readonly stderr: Write;
}

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

/**
 * The `webcap` program. `config` is called only by the commands that need it, so that
 * `webcap --help` works even with a bad environment. Commander's exits are thrown as
 * CommanderError (runWebcap turns them into exit codes) instead of ending the process.
 */
export function webcapProgram(config: () => Config, output: CliOutput): Command {
  const program = new Command('webcap')
    .description('Self-hostable web capture, content and analysis API')
    .showHelpAfterError();
  program
    .command('serve')
    .description('run the HTTP API (HOST, PORT and the rest from the environment)')
    // Loaded only for `serve`: the browser, HTTP and storage stack costs seconds to import, which
    // every admin command would otherwise pay.
    .action(async () => {
      const { serve } = await import('./serve.js');
      await serve(config());
    });
  program
    .command('worker')
    .description('run async jobs from the BullMQ queue (REDIS_URL), without HTTP')
    .action(async () => {
      const { worker } = await import('./worker.js');
      await worker(config());
    });
  program.addCommand(adminCommand(config, output.stdout));
  // Set on each command: commander copies them only to commands made with .command() afterwards,
  // and the admin commands are made apart.
  for (const command of everyCommand(program)) {
    command.exitOverride().configureOutput({ writeOut: output.stdout, writeErr: output.stderr });
  }
  return program;
}

/**
 * Runs `webcap ARGS` (the arguments after the script) and resolves with its exit code: 0, 1 for
 * a usage mistake or a refused operation (WebcapError, reported as the API words it), 2 for a
 * configuration error. Anything else is a bug and is thrown.
 */
export async function runWebcap(
  args: readonly string[],
  config: () => Config,
  output: CliOutput,
): Promise<number> {
  try {
    await webcapProgram(config, output).parseAsync(args, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ConfigError) {
      output.stderr(`webcap: configuration error: ${error.message}\n`);
      return 2;
    }
    if (error instanceof WebcapError) {
      output.stderr(`webcap: ${errorResponse(error).body.error}\n`);
      return 1;
    }
    throw error;
  }
}
