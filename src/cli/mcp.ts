import { Command } from 'commander';
import type { Config } from '../config.js';
import { keyFileOption, keyOption } from './client-options.js';
import type { McpOptions } from './mcp-stdio.js';

/** `webcap mcp`: the MCP server over stdio (docs/mcp.md). */
export function mcpCommand(config: () => Config, env: Readonly<Record<string, string | undefined>>): Command {
  const command = new Command('mcp')
    .description(
      "MCP server for AI agents over stdio: on a webcap server (--server), or on this machine's engines",
    )
    .option(
      '--server <url>',
      'the webcap API to call (env WEBCAP_URL); without it the engines run in this process',
    )
    .addOption(keyOption())
    .addOption(keyFileOption());
  command.action(async (options: McpOptions) => {
    // Loaded only for `mcp`: the engines' stack costs seconds to import, which other commands would pay.
    const { serveStdio } = await import('./mcp-stdio.js');
    await serveStdio(options, config, env, (message) => command.error(message, { exitCode: 2 }));
  });
  return command;
}
