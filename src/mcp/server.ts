import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Backend } from './backend.js';
import {
  captureResult,
  contentResult,
  crawlStartedResult,
  crawlStatusResult,
  errorResult,
  jobResult,
  jsonText,
  mapResult,
  refusal,
  submittedResult,
  websiteCrawlerResult,
} from './results.js';
import {
  AnalyzeTool,
  CaptureTool,
  ContentTool,
  CRAWL_STATUS_LIMITS,
  CrawlStartTool,
  CrawlStatusTool,
  ExtractTool,
  JobStatusTool,
  MapTool,
  TOOLS,
  type ToolName,
  toolArgs,
  UsageTool,
  WebsiteCrawlerTool,
} from './tools.js';

/** The tools/list answer: computed once, it is the same for every caller. */
const LISTED = {
  tools: TOOLS.map(({ name, description, inputSchema }) => ({
    name,
    description,
    inputSchema: JSON.parse(JSON.stringify(inputSchema)) as { type: 'object' },
  })),
};

/** Runs one tool on the backend and shapes its answer. */
async function callTool(backend: Backend, name: ToolName, raw: unknown): Promise<CallToolResult> {
  switch (name) {
    case 'capture': {
      const done = await backend.capture(toolArgs(CaptureTool, raw));
      return done.kind === 'job' ? submittedResult(done) : captureResult(done.value);
    }
    case 'content': {
      const args = toolArgs(ContentTool, raw);
      const done = await backend.content(args);
      return done.kind === 'job' ? submittedResult(done) : contentResult(done.value, args);
    }
    case 'analyze': {
      const done = await backend.analyze(toolArgs(AnalyzeTool, raw));
      return done.kind === 'job'
        ? submittedResult(done)
        : { content: [{ type: 'text', text: jsonText(done.value) }] };
    }
    case 'extract': {
      const done = await backend.extract(toolArgs(ExtractTool, raw));
      return done.kind === 'job'
        ? submittedResult(done)
        : { content: [{ type: 'text', text: jsonText(done.value) }] };
    }
    case 'website_crawler': {
      const args = toolArgs(WebsiteCrawlerTool, raw);
      const done = await backend.websiteCrawler(args);
      return done.kind === 'job' ? submittedResult(done) : websiteCrawlerResult(done.value, args);
    }
    case 'crawl_start':
      return crawlStartedResult(await backend.crawlStart(toolArgs(CrawlStartTool, raw)));
    case 'crawl_status': {
      const args = toolArgs(CrawlStatusTool, raw);
      const limit = args.limit ?? CRAWL_STATUS_LIMITS.defaultPages;
      return crawlStatusResult(await backend.crawlStatus({ ...args, limit }), args);
    }
    case 'map': {
      const args = toolArgs(MapTool, raw);
      const done = await backend.map(args);
      return done.kind === 'job' ? submittedResult(done) : mapResult(done.value, args);
    }
    case 'usage':
      toolArgs(UsageTool, raw);
      return { content: [{ type: 'text', text: jsonText(await backend.usage()) }] };
    case 'job_status': {
      const args = toolArgs(JobStatusTool, raw);
      return jobResult(await backend.job(args.job_id), args);
    }
  }
}

const NAMES = new Set<string>(TOOLS.map((tool) => tool.name));

/**
 * An MCP server with webcap's tools on `backend`. A refusal (a 4xx or 5xx of the API) is a tool
 * result with isError and the API's message, not a protocol error: the agent reads it and can
 * act on it (a 402 says to add credits, a 400 names the parameter).
 */
export function createMcpServer(backend: Backend, logger: Logger): Server {
  const server = new Server(
    // The API's generation, as /openapi.json's info.version gives it.
    { name: 'webcap', version: '1' },
    {
      capabilities: { tools: {} },
      instructions:
        'webcap captures, reads and analyzes web pages. Billable tools cost 1 credit per success; failures are free. ' +
        'For slow pages pass async=true and poll job_status.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => LISTED);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: raw } = request.params;
    if (!NAMES.has(name))
      return errorResult(`400 Bad Request: unknown tool ${JSON.stringify(name.slice(0, 64))}`);
    try {
      return await callTool(backend, name as ToolName, raw);
    } catch (error) {
      const { message, expected } = refusal(error);
      if (!expected) logger.error({ err: error, tool: name }, 'MCP tool call failed');
      return errorResult(message);
    }
  });
  return server;
}
