import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/databases.js';
import { writeRandomGguf } from './helpers/gguf.js';
import { type LlmServer, startLlmServer } from './helpers/llm-server.js';

const ARTICLE_SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['title', 'tags'],
  additionalProperties: false,
};
const messages = [
  { role: 'system', content: 'Extract the title and tags of the page as JSON.' },
  { role: 'user', content: 'Example Domain. This domain is for use in illustrative examples in documents.' },
];

async function chat(server: LlmServer, body: object, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'tiny-random', messages, ...body }),
  });
  return { status: response.status, body: await response.json() };
}

const jsonSchema = (schema: object) => ({
  type: 'json_schema',
  json_schema: { name: 'page', schema, strict: true },
});

describe('writeRandomGguf', () => {
  it('writes the same small GGUF v3 file for the same seed', async () => {
    const dir = tempDir();
    const [a, b, c] = ['a', 'b', 'c'].map((name) => path.join(dir, `${name}.gguf`)) as [
      string,
      string,
      string,
    ];
    await writeRandomGguf(a);
    await writeRandomGguf(b);
    await writeRandomGguf(c, { seed: 2 });
    const [bytesA, bytesB, bytesC] = await Promise.all([a, b, c].map((file) => readFile(file)));
    expect(bytesA?.subarray(0, 4).toString('latin1')).toBe('GGUF');
    expect(bytesA?.readUInt32LE(4)).toBe(3);
    expect(bytesA?.equals(bytesB as Buffer)).toBe(true);
    expect(bytesA?.equals(bytesC as Buffer)).toBe(false);
    expect((await stat(a)).size).toBeLessThan(1024 * 1024);
  });
});

describe('startLlmServer', () => {
  let server: LlmServer;
  beforeAll(async () => {
    server = await startLlmServer();
  });
  afterAll(() => server.close());

  describe('happy', () => {
    it('lists its model', async () => {
      const response = await fetch(`${server.baseUrl}/models`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        object: 'list',
        data: [{ id: 'tiny-random', object: 'model' }],
      });
    });

    it('answers json_schema with JSON that matches the schema, the same for the same request', async () => {
      const request = { response_format: jsonSchema(ARTICLE_SCHEMA), temperature: 0 };
      const first = await chat(server, request);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        object: 'chat.completion',
        model: 'tiny-random',
        choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }],
      });
      const content = JSON.parse(first.body.choices[0].message.content);
      expect(Object.keys(content)).toEqual(['title', 'tags']);
      expect(typeof content.title).toBe('string');
      expect(
        Array.isArray(content.tags) && content.tags.every((tag: unknown) => typeof tag === 'string'),
      ).toBe(true);
      const { prompt_tokens, completion_tokens, total_tokens } = first.body.usage;
      expect(prompt_tokens).toBeGreaterThan(100);
      expect(completion_tokens).toBeGreaterThan(5);
      expect(total_tokens).toBe(prompt_tokens + completion_tokens);

      const second = await chat(server, request);
      expect(second.body.choices[0].message.content).toBe(first.body.choices[0].message.content);
    });

    it('honours maxLength and maxItems in the schema', async () => {
      const schema = {
        type: 'object',
        properties: {
          title: { type: 'string', maxLength: 3 },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 1 },
        },
      };
      const { body } = await chat(server, { response_format: jsonSchema(schema), temperature: 1, seed: 3 });
      const content = JSON.parse(body.choices[0].message.content);
      expect(content.title.length).toBeLessThanOrEqual(3);
      expect(content.tags.length).toBeLessThanOrEqual(1);
    });

    it('takes OpenAI-style nullable fields (anyOf with null, type lists)', async () => {
      const schema = {
        type: 'object',
        properties: {
          note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          links: { type: ['array', 'null'], items: { type: 'string' } },
        },
        required: ['note', 'links'],
        additionalProperties: false,
      };
      const { status, body } = await chat(server, {
        response_format: jsonSchema(schema),
        temperature: 1,
        seed: 3,
      });
      expect(status).toBe(200);
      const content = JSON.parse(body.choices[0].message.content);
      expect(typeof content.note === 'string' || content.note === null).toBe(true);
      expect(Array.isArray(content.links) || content.links === null).toBe(true);
    });

    it('answers json_object with a JSON object', async () => {
      const { status, body } = await chat(server, { response_format: { type: 'json_object' } });
      expect(status).toBe(200);
      expect(JSON.parse(body.choices[0].message.content)).toBeTypeOf('object');
    });

    it('stops at max_tokens with finish_reason length', async () => {
      const { body } = await chat(server, { max_tokens: 5 });
      expect(body.choices[0].finish_reason).toBe('length');
      expect(body.usage.completion_tokens).toBe(5);
    });

    it('serves concurrent requests one after the other', async () => {
      const results = await Promise.all(
        [1, 2, 3].map(() => chat(server, { max_tokens: 20, temperature: 0 })),
      );
      expect(results.map((result) => result.status)).toEqual([200, 200, 200]);
      expect(new Set(results.map((result) => result.body.choices[0].message.content)).size).toBe(1);
    });

    it('records every request', async () => {
      const before = server.requests.length;
      await chat(server, { max_tokens: 1 }, { authorization: 'Bearer abc' });
      const recorded = server.requests.slice(before);
      expect(recorded).toHaveLength(1);
      expect(recorded[0]).toMatchObject({
        path: '/v1/chat/completions',
        headers: { authorization: 'Bearer abc' },
      });
      expect(recorded[0]?.body).toMatchObject({ model: 'tiny-random', max_tokens: 1, messages });
    });
  });

  describe('faults', () => {
    it('answers a status fault with an OpenAI error body, or the given body', async () => {
      server.faults.push(
        { kind: 'status', status: 429 },
        { kind: 'status', status: 503, body: { oops: true } },
      );
      const first = await chat(server, { max_tokens: 1 });
      expect(first.status).toBe(429);
      expect(first.body.error).toMatchObject({ message: expect.any(String), type: expect.any(String) });
      expect(await chat(server, { max_tokens: 1 })).toEqual({ status: 503, body: { oops: true } });
      expect((await chat(server, { max_tokens: 1 })).status).toBe(200);
    });

    it('delays an answer', async () => {
      server.faults.push({ kind: 'delay', ms: 300 });
      const started = performance.now();
      const { status } = await chat(server, { max_tokens: 1 });
      expect(status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    });

    it('keeps serving after a client gives up during a delay', async () => {
      server.faults.push({ kind: 'delay', ms: 10_000 });
      const request = fetch(`${server.baseUrl}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'tiny-random', messages, max_tokens: 1 }),
        signal: AbortSignal.timeout(100),
      });
      await expect(request).rejects.toThrow();
      expect((await chat(server, { max_tokens: 1 })).status).toBe(200);
    });

    it('ignores response_format, answering free text that is not JSON', async () => {
      server.faults.push({ kind: 'ignore-format' });
      const { status, body } = await chat(server, {
        response_format: jsonSchema(ARTICLE_SCHEMA),
        max_tokens: 64,
      });
      expect(status).toBe(200);
      expect(() => JSON.parse(body.choices[0].message.content)).toThrow();
    });

    it('replies with the given content', async () => {
      server.faults.push({ kind: 'reply', content: '{"title":"Example","tags":[]}' });
      const { status, body } = await chat(server, { response_format: jsonSchema(ARTICLE_SCHEMA) });
      expect(status).toBe(200);
      expect(body.choices[0]).toMatchObject({
        message: { content: '{"title":"Example","tags":[]}' },
        finish_reason: 'stop',
      });
    });

    it('drops the connection', async () => {
      server.faults.push({ kind: 'drop' });
      await expect(chat(server, { max_tokens: 1 })).rejects.toThrow();
      expect((await chat(server, { max_tokens: 1 })).status).toBe(200);
    });
  });

  describe('errors', () => {
    it('answers 404 for another model', async () => {
      const { status, body } = await chat(server, { model: 'gpt-4o' });
      expect(status).toBe(404);
      expect(body.error).toMatchObject({
        code: 'model_not_found',
        message: expect.stringContaining('model not found'),
      });
    });

    it('answers 400 for a body that is not JSON or not a chat request', async () => {
      const notJson = await fetch(`${server.baseUrl}/chat/completions`, {
        method: 'POST',
        body: '{"model":',
      });
      expect(notJson.status).toBe(400);
      expect((await notJson.json()).error.type).toBe('invalid_request_error');
      for (const body of [
        { messages: [] },
        { messages: [{ role: 'robot', content: 'hi' }] },
        { messages: [{ role: 'user', content: 42 }] },
        { max_tokens: 0 },
        { temperature: 3 },
        { response_format: { type: 'xml' } },
        { response_format: { type: 'json_schema', json_schema: { name: 'x' } } },
      ]) {
        expect((await chat(server, body)).status, JSON.stringify(body)).toBe(400);
      }
    });

    it('answers 400 for a prompt longer than the context', async () => {
      const { status, body } = await chat(server, {
        messages: [{ role: 'user', content: 'word '.repeat(2000) }],
      });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({
        code: 'context_length_exceeded',
        message: expect.stringContaining('context length'),
      });
    });

    it('answers 404 for other paths', async () => {
      expect((await fetch(`${server.baseUrl}/completions`, { method: 'POST' })).status).toBe(404);
      expect((await fetch(`${server.baseUrl}/chat/completions`)).status).toBe(404);
    });
  });
});

describe('startLlmServer with options', () => {
  let keyed: LlmServer;
  let plain: LlmServer;
  beforeAll(async () => {
    [keyed, plain] = await Promise.all([
      startLlmServer({ apiKey: 'sk-test', supports: 'json_object', model: 'other' }),
      startLlmServer({ supports: 'none' }),
    ]);
  });
  afterAll(() => Promise.all([keyed.close(), plain.close()]));

  it('requires its API key', async () => {
    const request = { model: 'other', max_tokens: 1 };
    expect((await chat(keyed, request)).status).toBe(401);
    expect((await chat(keyed, request, { authorization: 'Bearer wrong' })).body.error.code).toBe(
      'invalid_api_key',
    );
    expect((await chat(keyed, request, { authorization: 'Bearer sk-test' })).status).toBe(200);
    expect((await fetch(`${keyed.baseUrl}/models`)).status).toBe(401);
  });

  it('rejects json_schema when it supports json_object only', async () => {
    const auth = { authorization: 'Bearer sk-test' };
    const schema = await chat(keyed, { model: 'other', response_format: jsonSchema(ARTICLE_SCHEMA) }, auth);
    expect(schema.status).toBe(400);
    expect(schema.body.error.message).toContain('json_schema');
    const object = await chat(keyed, { model: 'other', response_format: { type: 'json_object' } }, auth);
    expect(object.status).toBe(200);
  });

  it('rejects any response_format when it supports none', async () => {
    expect((await chat(plain, { response_format: { type: 'json_object' } })).status).toBe(400);
    expect((await chat(plain, { max_tokens: 3 })).status).toBe(200);
  });
});
