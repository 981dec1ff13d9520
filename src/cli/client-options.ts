import { readFileSync } from 'node:fs';
import { WebcapError as ApiError, Webcap } from '@webcap/sdk';
import { type Command, Option } from 'commander';
import { CallFailure, UsageError } from './cli-errors.js';
import { EXIT, exitCodeOfStatus } from './exit-codes.js';
import type { CliOutput } from './program.js';
import { showProgress } from './progress.js';

/** Where the API verbs call when neither --server nor WEBCAP_URL says: `webcap serve`'s default. */
export const DEFAULT_SERVER = 'http://127.0.0.1:8080';

/** The options every API verb takes: where, with which key, and JSON output. */
export function addClientOptions(command: Command): Command {
  return command
    .addOption(new Option('--server <url>', `the webcap API (env WEBCAP_URL, default ${DEFAULT_SERVER})`))
    .addOption(keyOption())
    .addOption(keyFileOption())
    .addOption(new Option('--json', 'print JSON'));
}

/** `--key`: kept for scripts, warned of (its value is in the process's arguments). */
export function keyOption(): Option {
  return new Option(
    '--key <key>',
    'API key; prefer WEBCAP_API_KEY or --key-file: other users see arguments',
  ).conflicts('keyFile');
}

/** `--key-file`: the key read from a file, out of the process's arguments. */
export function keyFileOption(): Option {
  return new Option('--key-file <path>', 'read the API key from this file (its first line)');
}

/** Where a key may come from on the command line. */
export interface KeyOptions {
  readonly key?: string;
  readonly keyFile?: string;
}

export interface ClientOptions extends KeyOptions {
  readonly server?: string;
  readonly json?: boolean;
}

/** What `--key` costs, said on stderr each time it is used. */
export const KEY_ARGUMENT_WARNING =
  'webcap: warning: --key puts the API key in the command line, which other users of this machine can read ' +
  '(ps, /proc/PID/cmdline); set WEBCAP_API_KEY or use --key-file instead\n';

/**
 * The API key from `--key-file`, `--key` (warned of on stderr) or WEBCAP_API_KEY, in that order;
 * undefined when none gives one. A key file that cannot be read, or holds no key, is a UsageError.
 */
export function apiKeyOf(
  options: KeyOptions,
  env: Readonly<Record<string, string | undefined>>,
  stderr: (text: string) => void,
): string | undefined {
  if (options.keyFile !== undefined) return keyFromFile(options.keyFile);
  if (options.key !== undefined) {
    stderr(KEY_ARGUMENT_WARNING);
    return options.key;
  }
  return env.WEBCAP_API_KEY || undefined;
}

function keyFromFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`--key-file ${file}: cannot be read (${code})`);
  }
  const key = text.split(/\r?\n/, 1)[0]?.trim() ?? '';
  if (key === '') throw new UsageError(`--key-file ${file}: its first line holds no key`);
  return key;
}

/** One API verb's run: its client, the server it talks to, where it writes, and in which form. */
export interface Session {
  readonly client: Webcap;
  readonly server: string;
  readonly output: CliOutput;
  readonly json: boolean;
}

/** The server's URL without trailing slashes; a UsageError naming `name` when it is not http(s). */
function serverUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${name} must be an http(s) URL (got ${JSON.stringify(raw)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${name} must be an http(s) URL (got ${JSON.stringify(raw)})`);
  }
  return url.href.replace(/\/+$/, '');
}

/** The server named by --server, else WEBCAP_URL, checked; undefined when neither says. */
export function givenServer(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (option !== undefined) return serverUrl(option, '--server');
  return env.WEBCAP_URL ? serverUrl(env.WEBCAP_URL, 'WEBCAP_URL') : undefined;
}

/**
 * The session of an API verb from its options and the environment (the options win). These verbs
 * are clients: they read WEBCAP_URL and WEBCAP_API_KEY only, never the service's configuration,
 * so that they work on a machine that runs no service.
 */
export function sessionOf(options: ClientOptions, output: CliOutput): Session {
  const env = output.env ?? {};
  const server = givenServer(options.server, env) ?? DEFAULT_SERVER;
  const apiKey = apiKeyOf(options, env, output.stderr);
  return { client: new Webcap({ baseUrl: server, apiKey }), server, output, json: options.json === true };
}

/**
 * The one line a failed call is reported with, and its exit code: the status and the API's own
 * words, which already name the kind of refusal ("Bad Request: …", "Invalid API Key"), as MCP's
 * tool errors give them.
 */
export function failureOf(error: unknown, server: string): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.kind === 'http' && error.status !== null) {
    return new CallFailure(`${error.status} ${error.message}`, exitCodeOfStatus(error.status));
  }
  if (error.kind === 'network')
    return new CallFailure(`cannot reach ${server}: ${error.message}`, EXIT.failed);
  return new CallFailure(error.message, EXIT.failed);
}

/**
 * Runs one call of the SDK with the elapsed time on stderr meanwhile (on a terminal only); an SDK
 * error becomes a CallFailure carrying the API's message and the exit code of its status.
 */
export async function calling<T>(session: Session, label: string, call: () => Promise<T>): Promise<T> {
  const stop = showProgress(session.output.stderr, session.output.stderrIsTTY === true, label);
  try {
    return await call();
  } catch (error) {
    throw failureOf(error, session.server);
  } finally {
    stop();
  }
}

/** Prints `value` as JSON with --json, else the human form. */
export function print(session: Session, value: unknown, human: () => string): void {
  session.output.stdout(session.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}
