import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyzedPage } from '../src/engines/analyze/analyzers/analyzer.js';
import { type OpenAiConfig, openAiAnalyzer } from '../src/engines/analyze/analyzers/openai.js';
import { readPage } from '../src/engines/analyze/read-page.js';
import { type LlmServer, startLlmServer } from './helpers/llm-server.js';

/*
 * The openai analyzer as an engine part, without HTTP, against a real model server on 127.0.0.1:
 * the output modes (structured output, JSON mode, schema in the prompt) and the request options
 * that differ between OpenAI-compatible servers.
 */

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/analyze');
const html = readFileSync(path.join(FIXTURES, 'saas-landing.html'), 'utf8');
const reading = readPage({ html, pageUrl: 'https://pingwell.example/', withMarkdown: true });
const page: AnalyzedPage = { digest: reading.digest, markdown: reading.markdown };
const request = { customFields: { pricing: 'what the plans cost' }, customPrompt: null };

const VALID = JSON.stringify({
  summary: 'Pingwell monitors websites.',
  valueProposition: 'Know your site is down first.',
  keyFeatures: ['Checks'],
  categories: ['Software / SaaS'],
  useCases: [],
  targetAudience: 'Engineering teams',
  pricing: '$29 per month',
});

describe('the openai analyzer', () => {
  const servers: Record<'json_schema' | 'json_object' | 'none', LlmServer | null> = {
    json_schema: null,
    json_object: null,
    none: null,
  };
  beforeAll(async () => {
    servers.json_schema = await startLlmServer({ supports: 'json_schema' });
    servers.json_object = await startLlmServer({ supports: 'json_object' });
    servers.none = await startLlmServer({ supports: 'none' });
  });
  afterAll(async () => {
    for (const server of Object.values(servers)) await server?.close();
  });

  const analyzer = (server: LlmServer, overrides: Partial<OpenAiConfig> = {}) =>
    openAiAnalyzer({
      baseUrl: server.baseUrl,
      apiKey: null,
      model: 'tiny-random',
      output: 'json_schema',
      // The model generates on this machine's CPU: seconds, and many more on a loaded machine.
      timeoutMs: 120_000,
      retries: 0,
      maxInputTokens: 500,
      maxOutputTokens: 800,
      temperature: 0,
      maxTokensParam: 'max_tokens',
      ...overrides,
    });
  const last = (server: LlmServer) => server.requests.at(-1)?.body;

  it('json_schema: the grammar-constrained answer of the real model validates and is typed', async () => {
    const server = servers.json_schema as LlmServer;
    const a = analyzer(server);
    const answer = await a.analyze(page, request);
    await a.close();
    expect(Object.keys(answer.fields)).toEqual([
      'summary',
      'valueProposition',
      'keyFeatures',
      'categories',
      'useCases',
      'targetAudience',
    ]);
    for (const value of Object.values(answer.fields)) {
      if (Array.isArray(value)) for (const item of value) expect(typeof item).toBe('string');
      else expect(typeof value).toBe('string');
    }
    expect(answer.fields.keyFeatures.length).toBeLessThanOrEqual(8);
    expect(Object.keys(answer.custom)).toEqual(['pricing']);
    expect(last(server).messages[0].content).not.toContain('The JSON Schema of the answer');
  });

  it('json_object: JSON mode with the schema in the system message', async () => {
    const server = servers.json_object as LlmServer;
    server.faults.push({ kind: 'reply', content: VALID });
    const a = analyzer(server, { output: 'json_object' });
    const answer = await a.analyze(page, request);
    await a.close();
    expect(answer.custom).toEqual({ pricing: '$29 per month' });
    const body = last(server);
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages[0].content).toContain('The JSON Schema of the answer:\n{"type":"object"');
  });

  it('json_object: what the model writes in JSON mode without our schema fails validation, repair included', async () => {
    const server = servers.json_object as LlmServer;
    const before = server.requests.length;
    const a = analyzer(server, { output: 'json_object' });
    await expect(a.analyze(page, request)).rejects.toMatchObject({
      code: 'internal',
      detail: 'the analysis model failed',
    });
    await a.close();
    expect(server.requests.length - before).toBe(2);
  });

  it('prompt: no response_format at all, for servers that have none; a fenced answer is read', async () => {
    const server = servers.none as LlmServer;
    server.faults.push({ kind: 'reply', content: `\`\`\`json\n${VALID}\n\`\`\`` });
    const a = analyzer(server, { output: 'prompt' });
    const answer = await a.analyze(page, request);
    await a.close();
    expect(answer.fields.summary).toBe('Pingwell monitors websites.');
    expect(last(server)).not.toHaveProperty('response_format');
  });

  it('a server that refuses the output mode (400) fails at once, without retry', async () => {
    const server = servers.none as LlmServer;
    const before = server.requests.length;
    const a = analyzer(server, { output: 'json_schema', retries: 3 });
    await expect(a.analyze(page, request)).rejects.toMatchObject({ code: 'internal' });
    await a.close();
    expect(server.requests.length - before).toBe(1);
  });

  it('max_completion_tokens and the server default temperature, for models that take only those', async () => {
    const server = servers.json_schema as LlmServer;
    server.faults.push({ kind: 'reply', content: VALID });
    const a = analyzer(server, { maxTokensParam: 'max_completion_tokens', temperature: null });
    await a.analyze(page, request);
    await a.close();
    const body = last(server);
    expect(body.max_completion_tokens).toBe(800);
    expect(body).not.toHaveProperty('max_tokens');
    expect(body).not.toHaveProperty('temperature');
  });

  it('an unknown model (404) and a wrong key (401) are failures of the operator’s setup, not retried', async () => {
    const keyed = await startLlmServer({ apiKey: 'sk-right' });
    try {
      for (const overrides of [{ model: 'no-such-model' }, { apiKey: 'sk-wrong' }]) {
        const before = keyed.requests.length;
        const a = analyzer(keyed, { retries: 2, ...overrides });
        await expect(a.analyze(page, request)).rejects.toMatchObject({ code: 'internal' });
        await a.close();
        expect(keyed.requests.length - before).toBe(1);
      }
    } finally {
      await keyed.close();
    }
  });

  it('a server that cannot be reached is a failure after the retries', async () => {
    const a = analyzer(servers.json_schema as LlmServer, {
      baseUrl: 'http://127.0.0.1:9/v1',
      retries: 1,
    });
    await expect(a.analyze(page, request)).rejects.toMatchObject({ code: 'internal' });
    await a.close();
  });
});
