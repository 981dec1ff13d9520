#!/usr/bin/env node
import { Command } from 'commander';
import { type Config, ConfigError, configFromProcess } from '../config.js';
import { errorResponse, WebcapError } from '../errors.js';
import { adminCommand } from './admin.js';

/** Parsed lazily so that `webcap --help` works even with a bad environment. */
let parsed: Config | undefined;
function config(): Config {
  parsed ??= configFromProcess();
  return parsed;
}

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
program.addCommand(adminCommand(config, (text) => process.stdout.write(text)));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`webcap: configuration error: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof WebcapError) {
    process.stderr.write(`webcap: ${errorResponse(error).body.error}\n`);
    process.exit(1);
  }
  throw error;
}
