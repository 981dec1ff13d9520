import path from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Webcap } from '@webcap/sdk';
import { callerOfKey } from '../calls/caller.js';
import type { Config } from '../config.js';
import { errorResponse, WebcapError } from '../errors.js';
import { createLogger } from '../logging.js';
import type { Backend } from '../mcp/backend.js';
import { InProcessBackend } from '../mcp/in-process.js';
import { RemoteBackend } from '../mcp/remote.js';
import { createMcpServer } from '../mcp/server.js';
import { createRuntime, type Runtime } from '../runtime.js';
import { UsageError } from './cli-errors.js';
import { apiKeyOf, givenServer, type KeyOptions } from './client-options.js';

export interface McpOptions extends KeyOptions {
  readonly server?: string;
}

const NO_KEY =
  'needs an API key (WEBCAP_API_KEY or --key-file). Without --server it bills a key of the local database: ' +
  'create one with `webcap admin accounts create --name NAME --slug SLUG` and `webcap admin keys create --account SLUG`';

/**
 * Serves MCP on stdin/stdout until stdin ends or a signal comes. With a server, the tools call
 * it through the SDK; without, they run on the engines of this process (the environment's
 * configuration, no HTTP listener), billed to a key of its database. stdout carries JSON-RPC
 * only: logs go to stderr.
 */
export async function serveStdio(
  options: McpOptions,
  config: () => Config,
  env: Readonly<Record<string, string | undefined>>,
  fail: (message: string) => never,
): Promise<void> {
  let server: string | undefined;
  let key: string | undefined;
  try {
    server = givenServer(options.server, env);
    key = apiKeyOf(options, env, (text) => process.stderr.write(text));
  } catch (error) {
    if (error instanceof UsageError) fail(`webcap mcp: ${error.message}`);
    throw error;
  }
  if (key === undefined) fail(`webcap mcp ${NO_KEY}`);
  let backend: Backend;
  let logger = createLogger('info', process.stderr);
  let runtime: Runtime | null = null;
  if (server !== undefined) {
    backend = new RemoteBackend(new Webcap({ baseUrl: server, apiKey: key }));
  } else {
    const cfg = config();
    logger = createLogger(cfg.logLevel, process.stderr);
    const local = await createRuntime(cfg, { logger });
    runtime = local;
    const clock = local.calls.metering.clock;
    // Checked now, so that a wrong key is said at start rather than at each tool call.
    try {
      await callerOfKey(local.keys, key, clock());
    } catch (error) {
      await local.close();
      const why = error instanceof WebcapError ? errorResponse(error).body.error : String(error);
      fail(`webcap mcp: ${why}; it ${NO_KEY}`);
    }
    backend = new InProcessBackend(
      {
        calls: local.calls,
        jobs: local.jobs,
        crawls: local.crawls,
        crawlCeilings: cfg.crawl,
        db: local.store.db,
        requestLog: local.requestLog,
        metrics: null,
      },
      () => callerOfKey(local.keys, key, clock()),
      cfg.publicBaseUrl === null
        ? { dir: path.join(cfg.dataDir, 'captures') }
        : { baseUrl: cfg.publicBaseUrl },
    );
  }
  const mcp = createMcpServer(backend, logger);
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      await mcp.close().catch(() => undefined);
      await runtime?.close().catch((error: unknown) => logger.error({ err: error }, 'closing failed'));
      process.exit(0);
    })();
    return closing;
  };
  process.stdin.once('end', () => void close());
  process.once('SIGINT', () => void close());
  process.once('SIGTERM', () => void close());
  await mcp.connect(new StdioServerTransport());
}
