import { describe, expect, it } from 'vitest';
import { buildCall, callBody, callTarget, fieldKind, playgroundOperations } from './openapi-form.ts';
import { DOCUMENT } from './sample-document.ts';

describe('playgroundOperations', () => {
  it('lists the v1 operations without path parameters, key fields left out', () => {
    const operations = playgroundOperations(DOCUMENT);
    expect(operations.map((o) => o.id)).toEqual(['GET /v1/capture', 'GET /v1/analyze', 'POST /v1/analyze']);
    const capture = operations[0];
    expect(capture?.fields.map((f) => f.name)).not.toContain('x_api_key');
    expect(operations[2]?.fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['url', 'text', true],
      ['custom_response', 'json', false],
    ]);
    expect(operations[2]?.bodyIsJson).toBe(true);
  });

  it('reads each schema shape as its kind of control', () => {
    const fields = Object.fromEntries(
      (playgroundOperations(DOCUMENT)[0]?.fields ?? []).map((f) => [f.name, f]),
    );
    expect(fields.full_page?.kind).toBe('boolean');
    expect(fields.format).toMatchObject({
      kind: 'choice',
      options: ['png', 'jpeg', 'pdf'],
      defaultValue: 'png',
    });
    expect(fields.delay).toMatchObject({ kind: 'number', minimum: 0, maximum: 10 });
    expect(fields.viewport_width?.kind).toBe('integer');
    expect(fields.wait_until?.kind).toBe('list');
    expect(fields.url).toMatchObject({ kind: 'text', required: true, description: 'URL of the page' });
    expect(fieldKind({ anyOf: [{ enum: ['a'] }, { enum: ['b'] }] })).toBe('choice');
    expect(fieldKind({})).toBe('json');
    expect(fieldKind({ type: ['null', 'integer'] })).toBe('integer');
  });
});

describe('buildCall', () => {
  const [capture, , analyzePost] = playgroundOperations(DOCUMENT);
  if (capture === undefined || analyzePost === undefined) throw new Error('fixture');

  it('types the given values, leaves out empty ones, and repeats lists in the query', () => {
    const built = buildCall(capture, {
      url: 'https://example.com/a b',
      full_page: 'true',
      format: '',
      delay: '1.5',
      wait_until: 'load, networkidle0',
    });
    if (!('call' in built)) throw new Error(built.error.message);
    expect(built.call.params).toEqual([
      ['url', 'https://example.com/a b'],
      ['full_page', true],
      ['delay', 1.5],
      ['wait_until', ['load', 'networkidle0']],
    ]);
    expect(callTarget(built.call)).toBe(
      '/v1/capture?url=https%3A%2F%2Fexample.com%2Fa+b&full_page=true&delay=1.5&wait_until=load&wait_until=networkidle0',
    );
  });

  it('names the first missing or malformed field', () => {
    expect(buildCall(capture, {})).toEqual({ error: { field: 'url', message: 'url is required' } });
    expect(buildCall(capture, { url: 'x', delay: '11' })).toEqual({
      error: { field: 'delay', message: 'delay must be <= 10' },
    });
    expect(buildCall(capture, { url: 'x', viewport_width: '200.5' })).toMatchObject({
      error: { field: 'viewport_width' },
    });
    expect(buildCall(capture, { url: 'x', format: 'tiff' })).toMatchObject({ error: { field: 'format' } });
    expect(buildCall(analyzePost, { url: 'x', custom_response: '[1]' })).toMatchObject({
      error: { message: 'custom_response must be a JSON object' },
    });
  });

  it('sends a POST body as typed JSON, objects as objects', () => {
    const built = buildCall(analyzePost, {
      url: 'https://example.com',
      custom_response: '{"pricing": "the plans"}',
    });
    if (!('call' in built)) throw new Error(built.error.message);
    expect(callTarget(built.call)).toBe('/v1/analyze');
    expect(callBody(built.call)).toEqual({
      url: 'https://example.com',
      custom_response: { pricing: 'the plans' },
    });
  });
});
