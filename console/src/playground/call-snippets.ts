import { type BodyValue, callBody, callTarget, type PlaygroundCall, paramValue } from './openapi-form.ts';

/*
 * The lines that make the playground's call outside the browser: curl, the TypeScript SDK
 * (@webcap/sdk, docs/clients.md) and the CLI (docs/cli.md). The key is always $WEBCAP_API_KEY:
 * the console never has a key to put there.
 */

export interface CallSnippets {
  readonly curl: string;
  /** Null for an endpoint the SDK has no method for. */
  readonly sdk: string | null;
  /** Null for an endpoint the CLI has no verb for (stats). */
  readonly cli: string | null;
}

/** A word as a POSIX shell reads it back unchanged: bare when safe, else single-quoted. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./:=,@%+-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The file a capture's bytes go to, or null when the answer is JSON (or a job). */
function captureFile(call: PlaygroundCall): string | null {
  if (call.operation.path !== '/v1/capture') return null;
  const responseType = paramValue(call, 'response_type');
  const json =
    (responseType !== undefined && responseType !== 'image') ||
    paramValue(call, 's3_url') === true ||
    paramValue(call, 'is_async') === true;
  if (json) return null;
  const format = paramValue(call, 'format');
  return `capture.${typeof format === 'string' ? format : 'png'}`;
}

/** `curl` with the key in its header. */
export function curlLine(call: PlaygroundCall, baseUrl: string): string {
  const words = ['curl -s -H "x-api-key: $WEBCAP_API_KEY"'];
  if (call.operation.bodyIsJson) {
    words.push("-H 'content-type: application/json'", shellQuote(`${baseUrl}${call.operation.path}`));
    words.push('-d', shellQuote(JSON.stringify(callBody(call))));
  } else {
    words.push(shellQuote(`${baseUrl}${callTarget(call)}`));
  }
  const file = captureFile(call);
  if (file !== null) words.push('-o', file);
  return words.join(' ');
}

/** The SDK method of each v1 path, and the job kind it has when it runs async. */
const SDK_METHODS: Readonly<Record<string, { method: string; job: string | null }>> = {
  '/v1/capture': { method: 'capture', job: 'capture' },
  '/v1/content': { method: 'content', job: 'content' },
  '/v1/analyze': { method: 'analyze', job: 'analyze' },
  '/v1/website/crawler': { method: 'websiteCrawler', job: 'website-crawler' },
  '/v1/crawl': { method: 'crawl.start', job: null },
  '/v1/usage': { method: 'usage', job: null },
  '/v1/stats': { method: 'stats', job: null },
};

function objectLiteral(entries: ReadonlyArray<readonly [string, BodyValue]>): string {
  if (entries.length === 0) return '{}';
  const fields = entries.map(([name, value]) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
    return `${key}: ${JSON.stringify(value)}`;
  });
  return `{ ${fields.join(', ')} }`;
}

/** A few lines of TypeScript with `@webcap/sdk`. */
export function sdkLines(call: PlaygroundCall, baseUrl: string): string | null {
  const sdk = SDK_METHODS[call.operation.path];
  if (sdk === undefined) return null;
  const head = [
    "import { Webcap } from '@webcap/sdk';",
    '',
    `const webcap = new Webcap({ baseUrl: ${JSON.stringify(baseUrl)}, apiKey: process.env.WEBCAP_API_KEY });`,
  ];
  const params = call.params.filter(([name]) => name !== 'is_async' && name !== 'webhook_url');
  if (paramValue(call, 'is_async') === true && sdk.job !== null) {
    const webhook = paramValue(call, 'webhook_url');
    const options = typeof webhook === 'string' ? `, { webhookUrl: ${JSON.stringify(webhook)} }` : '';
    return [
      ...head,
      `const job = await webcap.jobs.submit('${sdk.job}', ${objectLiteral(params)}${options});`,
      'const done = await webcap.jobs.wait(job.job_id);',
    ].join('\n');
  }
  const args = sdk.method === 'usage' ? '' : objectLiteral(params);
  return [...head, `const result = await webcap.${sdk.method}(${args});`].join('\n');
}

/** The CLI verb of each v1 path, and the parameter that is its argument. */
const CLI_VERBS: Readonly<Record<string, { verb: string; argument: string | null }>> = {
  '/v1/capture': { verb: 'capture', argument: 'url' },
  '/v1/content': { verb: 'content', argument: 'url' },
  '/v1/analyze': { verb: 'analyze', argument: 'url' },
  '/v1/website/crawler': { verb: 'website-crawler', argument: 'query' },
  '/v1/usage': { verb: 'usage', argument: null },
};

const option = (name: string) => `--${name.replaceAll('_', '-')}`;

/** `npx webcap VERB ...`, printing what the API answers (the JSON, or the file for a capture). */
export function cliLine(call: PlaygroundCall, baseUrl: string): string | null {
  const cli = CLI_VERBS[call.operation.path];
  if (cli === undefined) return null;
  const words = ['npx webcap', cli.verb];
  const given = (name: string) => paramValue(call, name);
  const argument = cli.argument === null ? undefined : given(cli.argument);
  if (typeof argument === 'string') words.push(shellQuote(argument));
  for (const [name, value] of call.params) {
    if (name === cli.argument) continue;
    if (name === 'is_async') {
      if (value === true) words.push('--async');
    } else if (name === 'custom_response' && typeof value === 'object' && !Array.isArray(value)) {
      for (const [field, meaning] of Object.entries(value)) {
        words.push('--field', shellQuote(`${field}=${String(meaning)}`));
      }
    } else if (typeof value === 'boolean') {
      words.push(value ? option(name) : `--no-${option(name).slice(2)}`);
    } else if (Array.isArray(value)) {
      for (const item of value) words.push(option(name), shellQuote(String(item)));
    } else {
      words.push(option(name), shellQuote(typeof value === 'object' ? JSON.stringify(value) : String(value)));
    }
  }
  // The content verb asks for Markdown unless told not to; the API's default is without it.
  if (cli.verb === 'content' && given('include_markdown') === undefined) words.push('--no-include-markdown');
  const file = captureFile(call);
  if (file !== null) words.push('-o', file);
  else if (cli.verb !== 'capture' && given('return_page_source') !== true) words.push('--json');
  words.push('--server', shellQuote(baseUrl), '--key "$WEBCAP_API_KEY"');
  return words.join(' ');
}

/** The three lines for a call against the service at `baseUrl` (its origin, no trailing slash). */
export function callSnippets(call: PlaygroundCall, baseUrl: string): CallSnippets {
  return { curl: curlLine(call, baseUrl), sdk: sdkLines(call, baseUrl), cli: cliLine(call, baseUrl) };
}
