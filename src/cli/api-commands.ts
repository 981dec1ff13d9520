import { constants } from 'node:fs';
import { access, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type {
  AnalyzeParams,
  CaptureJson,
  CaptureParams,
  ContentParams,
  ExtractParams,
  JobAccepted,
  JobKind,
  JobParams,
  JobRecord,
  MapParams,
  Usage,
  WebsiteCrawlerParams,
} from '@webcap/sdk';
import { Argument, Command, Option } from 'commander';
import { type CaptureFormat, CONTENT_TYPES } from '../engines/capture/params.js';
import { WebcapError } from '../errors.js';
import { customFieldsOf } from '../requests/analyze.js';
import {
  type AnswerText,
  analyzeText,
  CAPTURE_ENDPOINTS,
  captureText,
  contentText,
  crawlerText,
  describeJob,
  extractText,
  jobResultText,
  mapText,
} from './answer-text.js';
import {
  ANALYZE_FIELDS,
  CAPTURE_FIELDS,
  CONTENT_FIELDS,
  EXTRACT_FIELDS,
  MAP_FIELDS,
  WEBSITE_CRAWLER_FIELDS,
} from './call-fields.js';
import {
  addFieldOptions,
  type CallParameters,
  callParameters,
  type Fields,
  requirePage,
} from './call-options.js';
import { CallFailure, UsageError } from './cli-errors.js';
import {
  addClientOptions,
  type ClientOptions,
  calling,
  print,
  type Session,
  sessionOf,
} from './client-options.js';
import { EXIT, exitCodeOfStatus } from './exit-codes.js';
import { fetchHostedFile } from './hosted-file.js';
import type { CliOutput } from './program.js';

/** The options of a call verb: its client options, its fields, -o, --async, the page files. */
interface CallOptions extends ClientOptions {
  readonly output?: string;
  readonly async?: boolean;
  readonly field?: readonly string[];
  readonly htmlFile?: string;
  readonly markdownFile?: string;
}

/** The options that send a file's text as the page, for the verbs that take html and markdown. */
const PAGE_FILES = [
  { option: 'htmlFile', flag: '--html-file', field: 'html' },
  { option: 'markdownFile', flag: '--markdown-file', field: 'markdown' },
] as const;

/** The fields a verb sets itself rather than offer as options. */
const NOT_OPTIONS = ['x_api_key', 'is_async'];

/**
 * A verb that calls one billable endpoint: URL as its argument, a `--name value` per field of the
 * endpoint's schema (but `positional` and NOT_OPTIONS), the client options and --async.
 */
function callCommand(name: string, description: string, fields: Fields, positional: string): Command {
  const command = new Command(name).description(description);
  if ('html' in fields) {
    command.argument('[url]', 'the page (http or https); or send one with --html-file, --markdown-file');
    for (const { flag, field } of PAGE_FILES) {
      command.addOption(new Option(`${flag} <path>`, `send the file's text as the page (${field})`));
    }
  } else {
    command.argument('<url>', 'the page (http or https)');
  }
  addFieldOptions(command, fields, [positional, ...NOT_OPTIONS]);
  addClientOptions(command);
  return command.addOption(
    new Option('--async', 'submit as a job and print it; `webcap jobs wait ID` waits for its end'),
  );
}

/** A page file's text; a file that cannot be read is a usage error naming its option. */
async function pageFile(flag: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag} ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The call's parameters from the verb's URL argument, its page files and options, checked by the
 * endpoint's schema; a verb that takes html and markdown needs a URL or one of them.
 */
async function parametersOf(
  fields: Fields,
  positional: string,
  url: string | undefined,
  options: CallOptions,
): Promise<CallParameters> {
  const given: Record<string, string> = url === undefined ? {} : { [positional]: url };
  const shown: Record<string, string> = { [positional]: 'URL' };
  const raw = options as Record<string, unknown>;
  for (const { option, flag, field } of PAGE_FILES) {
    const file = options[option];
    if (file === undefined) continue;
    if (raw[field] !== undefined) throw new UsageError(`--${field} and ${flag}: give one of them`);
    given[field] = await pageFile(flag, file);
    shown[field] = flag;
  }
  requirePage(fields, given, raw, 'a URL, --html, --markdown, --html-file or --markdown-file');
  return callParameters(fields, raw, given, shown);
}

/**
 * With --async, submits the call as a job and prints it (exit 0 once accepted); without, checks
 * that no async-only option was given. Returns whether it submitted.
 */
async function submitted<K extends JobKind>(
  session: Session,
  kind: K,
  params: Readonly<Record<string, unknown>>,
  async: boolean | undefined,
): Promise<boolean> {
  const { webhook_url: webhookUrl, ...rest } = params;
  if (async !== true) {
    if (webhookUrl !== undefined) throw new UsageError('--webhook-url needs --async');
    return false;
  }
  const accepted: JobAccepted = await calling(session, `${kind} (submitting)`, () =>
    session.client.jobs.submit(kind, rest as JobParams[K], {
      webhookUrl: typeof webhookUrl === 'string' ? webhookUrl : undefined,
    }),
  );
  print(
    session,
    accepted,
    () => `${accepted.job_id}\t${accepted.status}\nwait for it: webcap jobs wait ${accepted.job_id}`,
  );
  return true;
}

function warn(session: Session, warnings: readonly string[] | undefined): void {
  for (const warning of warnings ?? []) session.output.stderr(`webcap: warning: ${warning}\n`);
}

/** Prints `value` as JSON with --json; else the answer's text, its stderr lines beside it. */
function show(session: Session, value: unknown, answer: () => AnswerText): void {
  if (session.json) {
    print(session, value, () => '');
    return;
  }
  const { text, stderr } = answer();
  for (const line of stderr) session.output.stderr(`${line}\n`);
  session.output.stdout(`${text}\n`);
}

/** Fails before the call when -o names a file in a directory that cannot be written to. */
async function checkWritable(file: string): Promise<void> {
  try {
    await access(path.dirname(path.resolve(file)), constants.W_OK);
  } catch {
    throw new UsageError(`-o ${file}: its directory does not exist or cannot be written to`);
  }
}

async function writeOutput(file: string, bytes: Uint8Array): Promise<void> {
  try {
    await writeFile(file, bytes);
  } catch (error) {
    throw new CallFailure(
      `-o ${file}: ${error instanceof Error ? error.message : String(error)}`,
      EXIT.failed,
    );
  }
}

function captureCommand(output: CliOutput): Command {
  return callCommand(
    'capture',
    'a screenshot, PDF or recording of a page (GET /v1/capture)',
    CAPTURE_FIELDS,
    'url',
  )
    .addOption(new Option('-o, --output <file>', 'write the answer to FILE (- for stdout, even a terminal)'))
    .addHelpText(
      'after',
      '\nWithout -o the bytes go to stdout, unless it is a terminal. --json without -o asks for the JSON\nanswer (response_type=json, a hosted screenshot_url); with -o it prints what was written, as JSON.',
    )
    .action(async (url: string | undefined, options: CallOptions) => {
      const session = sessionOf(options, output);
      const params = await parametersOf(CAPTURE_FIELDS, 'url', url, options);
      if (options.async === true && options.output !== undefined) {
        throw new UsageError('-o is for the file itself; a job answers JSON: use jobs wait --json');
      }
      if (await submitted(session, 'capture', params, options.async)) return;
      const file = options.output === '-' ? undefined : options.output;
      if (file === undefined && session.json) params.response_type ??= 'json';
      const binary =
        (params.response_type ?? 'image') === 'image' && params.s3_url !== true && params.s3_url !== '1';
      if (file === undefined && binary) {
        if (output.stdoutBytes === undefined || (output.stdoutIsTTY === true && options.output !== '-')) {
          throw new UsageError(
            'the answer is an image or PDF, not written to a terminal: use -o FILE, or redirect stdout',
          );
        }
      }
      if (file !== undefined) await checkWritable(file);
      const result = await calling(session, 'capture', () => session.client.capture(params as CaptureParams));
      const bytes =
        result.kind === 'file'
          ? result.bytes
          : new TextEncoder().encode(`${JSON.stringify(result.data, null, 2)}\n`);
      const contentType = result.kind === 'file' ? result.contentType : 'application/json';
      if (result.kind === 'file') warn(session, result.warnings);
      if (file === undefined) {
        if (result.kind === 'file') output.stdoutBytes?.(bytes);
        else output.stdout(new TextDecoder().decode(bytes));
        return;
      }
      await writeOutput(file, bytes);
      output.stderr(`wrote ${bytes.byteLength} bytes (${contentType}) to ${file}\n`);
      if (session.json) {
        output.stdout(
          `${JSON.stringify({ file, bytes: bytes.byteLength, content_type: contentType, cache: result.cache }, null, 2)}\n`,
        );
      }
    });
}

function contentCommand(output: CliOutput): Command {
  return callCommand(
    'content',
    "a page's main content as Markdown (GET /v1/content); --whole-page for all of it; --json for the whole answer: metadata, links, as asked HTML and sitemap",
    CONTENT_FIELDS,
    'url',
  )
    .addOption(
      new Option('--whole-page', 'the whole page, menus and footers included (use_defuddle=false)').conflicts(
        'useDefuddle',
      ),
    )
    .action(async (url: string | undefined, options: CallOptions & { wholePage?: true }) => {
      const session = sessionOf(options, output);
      const params = await parametersOf(CONTENT_FIELDS, 'url', url, options);
      const formats = (params.formats ?? []) as readonly string[];
      // With --formats json (and not markdown) the verb prints the data (contentText); else the
      // Markdown, which --no-include-markdown leaves out of the answer.
      const printsJson = formats.includes('json') && !formats.includes('markdown');
      if (!printsJson) params.include_markdown ??= true;
      // The main content is what a reader runs the verb for; the menus around it only with --whole-page.
      params.use_defuddle ??= options.wholePage !== true;
      if (await submitted(session, 'content', params, options.async)) return;
      const { data } = await calling(session, 'content', () =>
        session.client.content(params as ContentParams),
      );
      show(session, { success: true, data }, () => contentText(data));
    });
}

/** `--field name=meaning`, given again for each field: custom_response, checked as the server checks it. */
function customFields(given: readonly string[] | undefined): Record<string, string> | undefined {
  if (given === undefined) return undefined;
  const fields: Record<string, string> = {};
  for (const item of given) {
    const at = item.indexOf('=');
    if (at < 1) throw new UsageError(`--field must be name=meaning (got ${JSON.stringify(item)})`);
    fields[item.slice(0, at)] = item.slice(at + 1);
  }
  try {
    return customFieldsOf(fields);
  } catch (error) {
    if (error instanceof WebcapError) throw new UsageError(`--field: ${error.detail ?? error.message}`);
    throw error;
  }
}

function analyzeCommand(output: CliOutput): Command {
  return callCommand(
    'analyze',
    "a page's summary, features, audience and contacts (POST /v1/analyze)",
    ANALYZE_FIELDS,
    'url',
  )
    .addOption(
      new Option(
        '--field <name=meaning>',
        'an extra field of the answer (custom_response); may be repeated',
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .action(async (url: string | undefined, options: CallOptions) => {
      const session = sessionOf(options, output);
      const params = await parametersOf(ANALYZE_FIELDS, 'url', url, options);
      const custom = customFields(options.field);
      const body = { ...params, ...(custom === undefined ? {} : { custom_response: custom }) };
      if (await submitted(session, 'analyze', body, options.async)) return;
      const { data } = await calling(session, 'analyze', () =>
        session.client.analyze(body as AnalyzeParams<string>),
      );
      show(session, { success: true, data }, () => analyzeText(data));
    });
}

/** The extract verb's options: its schema from a file, or its rules from a file or inline. */
interface ExtractOptions extends CallOptions {
  readonly rules?: string;
  readonly extractRules?: string;
  readonly schema?: string;
  readonly prompt?: string;
}

/** The server's check of a schema or rules, run here so that a wrong one is a usage error naming its path. */
async function checkedHere(check: () => unknown): Promise<void> {
  try {
    check();
  } catch (error) {
    if (error instanceof WebcapError) throw new UsageError(error.detail ?? error.message);
    throw error;
  }
}

/**
 * What the extract verb asks for: `--schema FILE` (with `--prompt`), or extract_rules from
 * `--rules FILE` or `--extract-rules JSON`; checked as the server checks them (bounds, shape,
 * keywords, selectors) before any call.
 */
async function extraction(
  options: ExtractOptions,
): Promise<{ schema: unknown } | { extract_rules: unknown }> {
  const inline = options.extractRules;
  const given = [options.schema, options.rules, inline].filter((value) => value !== undefined).length;
  if (given > 1) throw new UsageError('--schema, --rules and --extract-rules: give one of them');
  if (given === 0) {
    throw new UsageError('give a schema or rules: --schema FILE, --rules FILE or --extract-rules JSON');
  }
  // Loaded here, not with the program: they bring the DOM and ajv, which every other verb does without.
  const { extractByOf } = await import('../requests/extraction.js');
  if (options.schema !== undefined) {
    const text = await pageFile('--schema', options.schema);
    await checkedHere(() => extractByOf({ schema: text, prompt: options.prompt }));
    return { schema: JSON.parse(text) };
  }
  const text = options.rules === undefined ? (inline as string) : await pageFile('--rules', options.rules);
  await checkedHere(() => extractByOf({ extract_rules: text, prompt: options.prompt }));
  return { extract_rules: JSON.parse(text) };
}

/** The extract verb's fields: `--schema` names a file here, where the endpoint takes the schema itself. */
const { schema: _schema, ...EXTRACT_VERB_FIELDS } = EXTRACT_FIELDS;

function extractCommand(output: CliOutput): Command {
  return callCommand(
    'extract',
    'a page as JSON by a JSON Schema or CSS selector rules (POST /v1/extract)',
    EXTRACT_VERB_FIELDS,
    'url',
  )
    .addOption(new Option('--schema <file>', 'a JSON Schema of the answer, from a JSON file'))
    .addOption(new Option('--rules <file>', 'extract_rules from a JSON file'))
    .action(async (url: string | undefined, options: ExtractOptions) => {
      const session = sessionOf(options, output);
      const asked = await extraction(options);
      const params = await parametersOf(EXTRACT_VERB_FIELDS, 'url', url, {
        ...options,
        extractRules: undefined,
      } as CallOptions);
      const body = { ...params, ...asked } as ExtractParams;
      if (await submitted(session, 'extract', body, options.async)) return;
      const { cache: _cache, ...answer } = await calling(session, 'extract', () =>
        session.client.extract(body),
      );
      show(session, { success: true, ...answer }, () => extractText(answer));
    });
}

function websiteCrawlerCommand(output: CliOutput): Command {
  return callCommand(
    'website-crawler',
    "one page's raw response without rendering (GET /v1/website/crawler); --return-page-source prints its HTML",
    WEBSITE_CRAWLER_FIELDS,
    'query',
  ).action(async (url: string | undefined, options: CallOptions) => {
    const session = sessionOf(options, output);
    const params = await parametersOf(WEBSITE_CRAWLER_FIELDS, 'query', url, options);
    if (await submitted(session, 'website-crawler', params, options.async)) return;
    const result = await calling(session, 'website-crawler', () =>
      session.client.websiteCrawler(params as WebsiteCrawlerParams),
    );
    if (result.kind === 'html') {
      print(session, { html: result.html, target_status: result.targetStatus }, () => result.html);
      return;
    }
    const { data } = result;
    show(session, { success: true, data }, () => crawlerText(data));
  });
}

function mapCommand(output: CliOutput): Command {
  return callCommand(
    'map',
    "a site's URLs from its sitemaps and start page, without rendering (POST /v1/map); one per line, --json for the answer",
    MAP_FIELDS,
    'url',
  ).action(async (url: string | undefined, options: CallOptions) => {
    const session = sessionOf(options, output);
    const params = await parametersOf(MAP_FIELDS, 'url', url, options);
    if (await submitted(session, 'map', params, options.async)) return;
    const { data } = await calling(session, 'map', () => session.client.map(params as MapParams));
    show(session, data, () => mapText(data));
  });
}

function describeUsage(u: Usage): string {
  const lines = [
    `account ${u.account.name} (${u.account.slug}), key ${u.api_key.alias} (${u.api_key.category}${u.api_key.active ? '' : ', inactive'})`,
    `remaining ${u.remaining}, used ${u.total_used} this period (${u.period.start} to ${u.period.end})`,
    `subscription ${u.subscription.used}/${u.subscription.total} used`,
    `credits ${u.credits.consumed}/${u.credits.given} used`,
  ];
  if (u.packs !== null) lines.push(`packs ${u.packs.used}/${u.packs.total} used (${u.packs.count} packs)`);
  const { per_second: perSecond, per_minute: perMinute } = u.rate_limit;
  if (perSecond !== null || perMinute !== null) {
    lines.push(`rate limit ${perSecond ?? '-'} per second, ${perMinute ?? '-'} per minute`);
  }
  return lines.join('\n');
}

function usageCommand(output: CliOutput): Command {
  return addClientOptions(
    new Command('usage').description("the account's balances, limits and key (GET /v1/usage, free)"),
  ).action(async (options: ClientOptions) => {
    const session = sessionOf(options, output);
    const usage = await calling(session, 'usage', () => session.client.usage());
    print(session, usage, () => describeUsage(usage));
  });
}

const JOB_ID = /^[A-Za-z0-9_-]{1,128}$/;

function jobId(raw: string): string {
  if (!JOB_ID.test(raw))
    throw new UsageError(`ID must be a job id such as job_… (got ${JSON.stringify(raw)})`);
  return raw;
}

/** The longest `jobs wait --timeout`: a day. */
const MAX_WAIT_SECONDS = 86_400;

/** `--timeout SECONDS` checked: above 0, at most a day. */
export function seconds(raw: string): number {
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || value <= 0 || value > MAX_WAIT_SECONDS) {
    throw new UsageError(
      `--timeout must be a number of seconds above 0 and at most ${MAX_WAIT_SECONDS} (got ${JSON.stringify(raw)})`,
    );
  }
  return value;
}

/** `jobs NAME ID`: one job operation, its id checked before anything is sent. */
function jobCommand(name: string, description: string): Command {
  return addClientOptions(
    new Command(name)
      .description(description)
      .addArgument(new Argument('<id>', 'the job id (job_…)').argParser(jobId)),
  );
}

/**
 * Writes a completed capture job's file to `file`: its base64 when the job asked for one, else
 * the bytes behind its hosted link; says so on stderr, as `capture -o` does.
 */
async function writeJobFile(session: Session, job: JobRecord, file: string): Promise<void> {
  if (!CAPTURE_ENDPOINTS.includes(job.endpoint)) {
    throw new UsageError(
      `-o is for a capture job's file; ${job.job_id} is a ${job.endpoint} job: redirect stdout`,
    );
  }
  const result = job.result as CaptureJson;
  for (const line of captureText(result).stderr) session.output.stderr(`${line}\n`);
  let bytes: Uint8Array;
  try {
    bytes =
      result.base64 === undefined
        ? await fetchHostedFile(result.screenshot_url)
        : Buffer.from(result.base64, 'base64');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CallFailure(`the job's file ${result.screenshot_url}: ${reason}`, EXIT.failed);
  }
  await writeOutput(file, bytes);
  const contentType = CONTENT_TYPES[result.format as CaptureFormat] ?? 'application/octet-stream';
  session.output.stderr(`wrote ${bytes.byteLength} bytes (${contentType}) to ${file}\n`);
}

function jobsCommand(output: CliOutput): Command {
  const jobs = new Command('jobs').description(
    'async jobs: their state, cancellation, and waiting for their end',
  );
  jobs.addCommand(
    jobCommand('get', 'the job (GET /jobs/{id}, free)').action(async (id: string, options: ClientOptions) => {
      const session = sessionOf(options, output);
      const job = await calling(session, 'job', () => session.client.jobs.get(id));
      print(session, job, () => describeJob(job));
    }),
  );
  jobs.addCommand(
    jobCommand('cancel', 'cancel a queued job (DELETE /jobs/{id}); a running one is a 409').action(
      async (id: string, options: ClientOptions) => {
        const session = sessionOf(options, output);
        const job = await calling(session, 'cancel', () => session.client.jobs.cancel(id));
        print(session, job, () => describeJob(job));
      },
    ),
  );
  jobs.addCommand(
    jobCommand(
      'wait',
      'poll the job until it completed or failed and print it; a failed job exits as its error',
    )
      .option('--timeout <seconds>', 'give up after this long (exit 3)', '300')
      .addOption(
        new Option('-o, --output <file>', 'a capture job: write its file (image, PDF or recording) to FILE'),
      )
      .action(async (id: string, options: ClientOptions & { timeout: string; output?: string }) => {
        const session = sessionOf(options, output);
        const timeoutMs = seconds(options.timeout) * 1000;
        if (options.output !== undefined) await checkWritable(options.output);
        const job = await calling(session, `waiting for ${id}`, () =>
          session.client.jobs.wait(id, { timeoutMs }),
        );
        if (options.output !== undefined && job.status === 'completed') {
          await writeJobFile(session, job, options.output);
          if (session.json) print(session, job, () => '');
          return;
        }
        show(session, job, () => jobResultText(job));
        if (job.status === 'failed') {
          const status = job.error?.status ?? 500;
          throw new CallFailure(
            `job ${job.job_id} failed: ${status} ${job.error?.error ?? 'no reason given'}`,
            exitCodeOfStatus(status),
          );
        }
      }),
  );
  return jobs;
}

/** The verbs that call a webcap API as a client (docs/cli.md), each with --server, --key and --json. */
export function apiCommands(output: CliOutput): Command[] {
  return [
    captureCommand(output),
    contentCommand(output),
    analyzeCommand(output),
    extractCommand(output),
    websiteCrawlerCommand(output),
    mapCommand(output),
    usageCommand(output),
    jobsCommand(output),
  ];
}
