#!/usr/bin/env node
import { type Config, configFromProcess } from '../config.js';
import { runWebcap } from './program.js';

/** Parsed lazily so that `webcap --help` works even with a bad environment. */
let parsed: Config | undefined;
function config(): Config {
  parsed ??= configFromProcess();
  return parsed;
}

// A reader that goes away (`webcap capture URL | head -c 100`) is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const code = await runWebcap(process.argv.slice(2), config, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdoutBytes: (bytes) => process.stdout.write(bytes),
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  env: process.env,
  onInterrupt: (handler) => {
    process.once('SIGINT', handler);
    return () => process.off('SIGINT', handler);
  },
  stdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
});
// serve and worker return once they run; their servers keep the process alive.
if (code !== 0) process.exit(code);
