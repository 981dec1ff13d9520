import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { WebcapError as ApiError, type CrawlPage, type CrawlParams, type CrawlRecord } from '@webcap/sdk';
import { Argument, Command, Option } from 'commander';
import { seconds } from './api-commands.js';
import { CRAWL_FIELDS } from './call-fields.js';
import { addFieldOptions, callParameters } from './call-options.js';
import { CallFailure, UsageError } from './cli-errors.js';
import {
  addClientOptions,
  type ClientOptions,
  calling,
  failureOf,
  print,
  type Session,
  sessionOf,
} from './client-options.js';
import { imageFileName, pageFileName, writeOwnerOnly } from './crawl-files.js';
import { EXIT } from './exit-codes.js';
import { fetchHostedFile } from './hosted-file.js';
import type { CliOutput } from './program.js';
import { showCount } from './progress.js';

/*
 * The whole-site crawl from the shell (docs/cli.md): `crawl-site` starts a crawl, follows it and
 * writes its pages as Markdown files; `crawl-status` and `crawl-cancel` act on one by its id.
 */

const CRAWL_ID = /^[A-Za-z0-9_-]{1,64}$/;

function crawlId(raw: string): string {
  if (!CRAWL_ID.test(raw))
    throw new UsageError(`ID must be a crawl id such as crawl_… (got ${JSON.stringify(raw)})`);
  return raw;
}

/** The record in a few lines: its state and counts. */
function describeCrawl(crawl: CrawlRecord): string {
  const c = crawl.counts;
  const reason = crawl.stop_reason === null ? '' : ` (${crawl.stop_reason})`;
  return [
    `${crawl.crawl_id}\t${crawl.status}${reason}\t${crawl.url}`,
    `pages: ${c.discovered} discovered, ${c.completed} completed, ${c.failed} failed, ${c.skipped} skipped, ${c.running} running; ${c.credits_used} credits used`,
  ].join('\n');
}

/** One line of index.json: a page, and the file it was written to (null when it has no Markdown). */
interface IndexEntry {
  readonly url: string;
  readonly final_url?: string;
  readonly status: CrawlPage['status'];
  readonly status_code: number | null;
  readonly depth: number;
  readonly file: string | null;
  /** The page's image beside its Markdown, with the screenshot format. */
  readonly image?: string;
  readonly error?: string;
}

/** A page's file: its URL, title and status as YAML front matter (JSON strings are YAML), then its Markdown. */
function pageDocument(page: CrawlPage): string {
  const front = [
    `url: ${JSON.stringify(page.url)}`,
    ...(page.final_url === undefined ? [] : [`final_url: ${JSON.stringify(page.final_url)}`]),
    ...(page.metadata?.title ? [`title: ${JSON.stringify(page.metadata.title)}`] : []),
    `status_code: ${page.status_code ?? 'null'}`,
  ];
  return `---\n${front.join('\n')}\n---\n\n${page.markdown ?? ''}\n`;
}

/** Creates DIR owner-only (0700) when missing; an existing one must be a directory we can write to. */
async function outputDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (!(await stat(dir)).isDirectory()) throw new Error('not a directory');
    await access(dir, constants.W_OK);
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new UsageError(`-o ${dir}: cannot be created or written to (${why})`);
  }
}

/** Writes every finished page of the crawl into `dir`, and index.json; answers the index's pages. */
async function writePages(session: Session, crawl: CrawlRecord, dir: string): Promise<IndexEntry[]> {
  const startHost = new URL(crawl.url).host;
  const entries: IndexEntry[] = [];
  const pages = session.client.crawl.pages(crawl.crawl_id);
  for (;;) {
    let next: IteratorResult<CrawlPage>;
    try {
      next = await pages.next();
    } catch (error) {
      throw failureOf(error, session.server);
    }
    if (next.done) break;
    const page = next.value;
    const file = page.status === 'completed' ? pageFileName(page.url, startHost) : null;
    if (file !== null) await written(dir, file, pageDocument(page));
    const image =
      file === null || page.screenshot === undefined
        ? null
        : await writtenImage(session, dir, imageFileName(file), page);
    entries.push({
      url: page.url,
      ...(page.final_url === undefined ? {} : { final_url: page.final_url }),
      status: page.status,
      status_code: page.status_code,
      depth: page.depth,
      file,
      ...(image === null ? {} : { image }),
      ...(page.error === undefined ? {} : { error: page.error }),
    });
  }
  const index = {
    crawl_id: crawl.crawl_id,
    url: crawl.url,
    status: crawl.status,
    counts: crawl.counts,
    pages: entries,
  };
  await written(dir, 'index.json', `${JSON.stringify(index, null, 2)}\n`);
  return entries;
}

/**
 * Writes the page's image from its link as `name`; null, with a warning, when the link does not
 * give it (the Markdown and the other pages are still worth having).
 */
async function writtenImage(
  session: Session,
  dir: string,
  name: string,
  page: CrawlPage,
): Promise<string | null> {
  let bytes: Buffer;
  try {
    bytes = await fetchHostedFile(page.screenshot ?? '');
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    session.output.stderr(`webcap: warning: ${page.url}: its screenshot could not be fetched (${why})\n`);
    return null;
  }
  await written(dir, name, bytes);
  return name;
}

async function written(dir: string, name: string, content: string | Uint8Array): Promise<void> {
  try {
    await writeOwnerOnly(dir, name, content);
  } catch (error) {
    throw new CallFailure(
      `-o ${dir}: ${error instanceof Error ? error.message : String(error)}`,
      EXIT.failed,
    );
  }
}

/**
 * Waits for the crawl's end with a bar of its pages on a terminal; null when `signal` (Ctrl-C)
 * stopped the wait first.
 */
async function followed(
  session: Session,
  id: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<CrawlRecord | null> {
  const { output } = session;
  const bar = showCount(output.stderr, output.stderrIsTTY === true, 'crawl');
  try {
    return await session.client.crawl.wait(id, {
      timeoutMs,
      signal,
      onPoll: ({ counts }) =>
        bar.update(counts.completed + counts.failed + counts.skipped, counts.discovered),
    });
  } catch (error) {
    if (signal.aborted) return null;
    throw failureOf(error, session.server);
  } finally {
    bar.stop();
  }
}

/** Cancels the crawl; one that ended meanwhile (409) is read as it ended. */
async function cancelledCrawl(session: Session, id: string): Promise<CrawlRecord> {
  return calling(session, 'crawl (cancelling)', async () => {
    try {
      return await session.client.crawl.cancel(id);
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) return session.client.crawl.get(id);
      throw error;
    }
  });
}

interface CrawlSiteOptions extends ClientOptions {
  readonly output: string;
  readonly timeout: string;
}

/** How an ended crawl exits: completed is 0; cancelled or stopped (a spent balance, a key withdrawn) is refused; failed is a failure. */
function endOf(crawl: CrawlRecord): CallFailure | null {
  if (crawl.status === 'completed') return null;
  const reason = crawl.stop_reason === null ? '' : ` (${crawl.stop_reason})`;
  const code = crawl.status === 'failed' ? EXIT.failed : EXIT.refused;
  return new CallFailure(`crawl ${crawl.crawl_id} ended ${crawl.status}${reason}`, code);
}

function crawlSiteCommand(output: CliOutput): Command {
  const command = new Command('crawl-site')
    .description(
      'crawl a whole site (POST /v1/crawl) and write each page as a Markdown file into DIR; 1 credit per page',
    )
    .argument('<url>', 'the start page (http or https)');
  addFieldOptions(command, CRAWL_FIELDS, ['url', 'x_api_key']);
  addClientOptions(command);
  return command
    .addOption(
      new Option(
        '-o, --output <dir>',
        'the directory for the pages and index.json (made 0700 if missing)',
      ).makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--timeout <seconds>',
        'give up waiting after this long (exit 3); the crawl goes on',
      ).default('3600'),
    )
    .addHelpText(
      'after',
      "\nOne file per completed page, named from its URL path (docs_intro.md), and index.json: each page's\nURL, status and file. With --formats screenshot, each page's PNG beside its file (docs_intro.png).\nCtrl-C cancels the crawl (DELETE), writes the pages finished, and exits 130.",
    )
    .action(async (url: string, options: CrawlSiteOptions) => {
      const session = sessionOf(options, output);
      const params = callParameters(
        CRAWL_FIELDS,
        options as unknown as Record<string, unknown>,
        { url },
        { url: 'URL' },
      );
      // The verb writes Markdown: a crawl asked for other formats keeps it too.
      if (Array.isArray(params.formats) && !params.formats.includes('markdown'))
        params.formats.push('markdown');
      const timeoutMs = seconds(options.timeout) * 1000;
      await outputDir(options.output);
      const interrupted = new AbortController();
      // Set before the start is sent: a Ctrl-C meanwhile still cancels the crawl it starts.
      const release = output.onInterrupt?.(() => interrupted.abort()) ?? (() => {});
      let crawl: CrawlRecord;
      try {
        const accepted = await calling(session, 'crawl (starting)', () =>
          session.client.crawl.start(params as unknown as CrawlParams),
        );
        output.stderr(`${accepted.crawl_id} started; webcap crawl-status ${accepted.crawl_id}\n`);
        const ended = await followed(session, accepted.crawl_id, timeoutMs, interrupted.signal);
        if (ended === null) {
          const cancelled = await cancelledCrawl(session, accepted.crawl_id);
          const entries = await writePages(session, cancelled, options.output);
          const files = entries.filter((entry) => entry.file !== null).length;
          throw new CallFailure(
            `interrupted: crawl ${cancelled.crawl_id} ${cancelled.status}; ${files} pages written to ${options.output}`,
            EXIT.interrupted,
          );
        }
        crawl = ended;
      } finally {
        release();
      }
      const entries = await writePages(session, crawl, options.output);
      const files = entries.filter((entry) => entry.file !== null).length;
      print(
        session,
        {
          crawl_id: crawl.crawl_id,
          status: crawl.status,
          counts: crawl.counts,
          directory: options.output,
          pages: entries,
        },
        () => `${describeCrawl(crawl)}\nwrote ${files} pages and index.json to ${options.output}`,
      );
      const end = endOf(crawl);
      if (end !== null) throw end;
    });
}

/** `crawl-NAME ID`: one crawl operation, its id checked before anything is sent. */
function crawlIdCommand(name: string, description: string): Command {
  return addClientOptions(
    new Command(name)
      .description(description)
      .addArgument(new Argument('<id>', 'the crawl id (crawl_…)').argParser(crawlId)),
  );
}

function crawlStatusCommand(output: CliOutput): Command {
  return crawlIdCommand(
    'crawl-status',
    "a crawl's state and counts (GET /v1/crawl/{id}, free); --json adds its pages",
  )
    .addOption(new Option('--cursor <cursor>', 'list the pages after this cursor (from the last answer)'))
    .addOption(new Option('--limit <n>', 'pages listed with --json, 1 to 100 (default 20)'))
    .action(async (id: string, options: ClientOptions & { cursor?: string; limit?: string }) => {
      const session = sessionOf(options, output);
      const limit = options.limit === undefined ? undefined : Number(options.limit);
      if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 100)) {
        throw new UsageError(
          `--limit must be a whole number from 1 to 100 (got ${JSON.stringify(options.limit)})`,
        );
      }
      if (options.cursor !== undefined && !/^(-1|[0-9]{1,11})$/.test(options.cursor)) {
        throw new UsageError(
          `--cursor must be a cursor from an answer (got ${JSON.stringify(options.cursor)})`,
        );
      }
      const crawl = await calling(session, 'crawl', () =>
        session.client.crawl.get(id, { cursor: options.cursor, limit }),
      );
      print(session, crawl, () => describeCrawl(crawl));
    });
}

function crawlCancelCommand(output: CliOutput): Command {
  return crawlIdCommand(
    'crawl-cancel',
    'cancel a crawl (DELETE /v1/crawl/{id}, free): no page starts after it; an ended one is a 409',
  ).action(async (id: string, options: ClientOptions) => {
    const session = sessionOf(options, output);
    const crawl = await calling(session, 'cancel', () => session.client.crawl.cancel(id));
    print(session, crawl, () => describeCrawl(crawl));
  });
}

/** The crawl verbs: crawl-site, crawl-status, crawl-cancel. */
export function crawlCommands(output: CliOutput): Command[] {
  return [crawlSiteCommand(output), crawlStatusCommand(output), crawlCancelCommand(output)];
}
