#!/usr/bin/env node
import { type Config, configFromProcess } from '../config.js';
import { runWebcap } from './program.js';

/** Parsed lazily so that `webcap --help` works even with a bad environment. */
let parsed: Config | undefined;
function config(): Config {
  parsed ??= configFromProcess();
  return parsed;
}

const code = await runWebcap(process.argv.slice(2), config, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
// serve and worker return once they run; their servers keep the process alive.
if (code !== 0) process.exit(code);
