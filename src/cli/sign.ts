import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { SIGNED_LINK_MAX_SECONDS, signedQueryString } from '../requests/signed-link.js';
import { ANALYZE_FIELDS, CAPTURE_FIELDS, CONTENT_FIELDS } from './call-fields.js';
import { addFieldOptions, callParameters, type Fields, requirePage } from './call-options.js';
import { UsageError } from './cli-errors.js';
import { DEFAULT_SERVER, givenServer } from './client-options.js';
import type { CliOutput } from './program.js';

/*
 * `webcap sign [capture|content|analyze] URL` (or --html, --markdown): prints a signed link
 * (docs/signed-links.md) that a web page can embed without an API key. Offline: nothing is called;
 * the secret is read from a file or standard input, never from the arguments, which other users
 * of the machine can read.
 */

interface SignOptions {
  readonly keyId: string;
  readonly signingSecretFile?: string;
  readonly signingSecretStdin?: boolean;
  readonly expiresIn: number;
  readonly server?: string;
  readonly json?: boolean;
}

/** Fields a link never carries: the key (a link has none), and a job's (its result needs a key to fetch). */
const NOT_SIGNED = ['x_api_key', 'is_async', 'webhook_url'];

function expiresIn(raw: string): number {
  const seconds = Number(raw);
  if (!/^[0-9]{1,9}$/.test(raw) || seconds < 1 || seconds > SIGNED_LINK_MAX_SECONDS) {
    throw new UsageError(`--expires-in must be whole seconds from 1 to ${SIGNED_LINK_MAX_SECONDS}`);
  }
  return seconds;
}

/** The signing secret: the first line of --signing-secret-file, or of standard input. */
async function secretOf(options: SignOptions, output: CliOutput): Promise<string> {
  if ((options.signingSecretFile === undefined) === (options.signingSecretStdin !== true)) {
    throw new UsageError(
      'give the signing secret with one of --signing-secret-file or --signing-secret-stdin',
    );
  }
  let text: string;
  if (options.signingSecretFile !== undefined) {
    try {
      text = readFileSync(options.signingSecretFile, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new UsageError(`--signing-secret-file ${options.signingSecretFile}: cannot be read (${code})`);
    }
  } else {
    text = (await output.stdin?.()) ?? '';
  }
  const secret = text.split(/\r?\n/, 1)[0]?.trim() ?? '';
  if (secret === '') throw new UsageError('the signing secret is empty');
  return secret;
}

/** A call's parameters as a link's text: lists item by item, objects as JSON text. */
function linkParams(params: Readonly<Record<string, unknown>>): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(params).map(([name, value]) => [
      name,
      Array.isArray(value)
        ? value.map(String)
        : typeof value === 'object' && value !== null
          ? JSON.stringify(value)
          : String(value),
    ]),
  );
}

function signCommand(name: string, path: string, fields: Fields, output: CliOutput): Command {
  const command = new Command(name).description(`a signed link to GET ${path}`);
  // A link may carry its page as html or markdown (in its query) instead of a URL.
  if ('html' in fields) command.argument('[url]', 'the page (http or https); or give --html, --markdown');
  else command.argument('<url>', 'the page (http or https)');
  addFieldOptions(command, fields, ['url', ...NOT_SIGNED]);
  command
    .requiredOption('--key-id <id>', "the signing key's id (webcap admin keys list)")
    .addOption(new Option('--signing-secret-file <path>', "read the key's signing secret from this file"))
    .addOption(new Option('--signing-secret-stdin', "read the key's signing secret from standard input"))
    .addOption(
      new Option('--expires-in <seconds>', 'how long the link works').argParser(expiresIn).default(86_400),
    )
    .addOption(new Option('--server <url>', `the webcap API (env WEBCAP_URL, default ${DEFAULT_SERVER})`))
    .addOption(new Option('--json', 'print JSON'))
    .action(async (url: string | undefined, options: SignOptions) => {
      const raw = options as unknown as Record<string, unknown>;
      const given: Record<string, string> = url === undefined ? {} : { url };
      requirePage(fields, given, raw, 'a URL, --html or --markdown');
      const params = callParameters(fields, raw, given, { url: 'URL' });
      const server = givenServer(options.server, output.env ?? {}) ?? DEFAULT_SERVER;
      const expires = Math.floor(Date.now() / 1000) + options.expiresIn;
      const query = signedQueryString(linkParams(params), {
        keyId: options.keyId,
        expires,
        signingSecret: await secretOf(options, output),
      });
      const link = `${server}${path}?${query}`;
      output.stdout(
        options.json === true ? `${JSON.stringify({ url: link, expires }, null, 2)}\n` : `${link}\n`,
      );
    });
  return command;
}

/** `webcap sign [capture] URL`, `webcap sign content URL`, `webcap sign analyze URL`. */
export function signCommands(output: CliOutput): Command {
  return new Command('sign')
    .description('print a signed link a web page can embed without an API key (docs/signed-links.md)')
    .addCommand(signCommand('capture', '/v1/capture', CAPTURE_FIELDS, output), { isDefault: true })
    .addCommand(signCommand('content', '/v1/content', CONTENT_FIELDS, output))
    .addCommand(signCommand('analyze', '/v1/analyze', ANALYZE_FIELDS, output));
}
