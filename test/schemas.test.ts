import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from './helpers/runtime.js';

type Schema = Record<string, unknown>;

/** Every schema below `node` with where it sits, through properties, items, anyOf/oneOf and parameters. */
function* schemasIn(node: unknown, at: string): Generator<[string, Schema]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemasIn(item, `${at}[${i}]`);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Schema;
  if (typeof schema.type === 'string') yield [at, schema];
  for (const [name, child] of Object.entries(schema)) {
    if (name === 'responses' || name === 'examples') continue;
    yield* schemasIn(child, `${at}.${name}`);
  }
}

/*
 * Every value a caller sends is bounded by its schema: numbers by a finite minimum and maximum
 * (the validator does not refuse Infinity by itself, see src/http/app.ts), strings by a length.
 */
describe('request schemas', () => {
  let t: TestRuntime;
  let inputs: [string, Schema][] = [];
  const operations: [string, Schema][] = [];

  beforeAll(async () => {
    t = await startTestRuntime('sqlite');
    const doc = (await t.runtime.app.inject({ url: '/openapi.json' })).json();
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const at = `${method.toUpperCase()} ${path}`;
        operations.push([at, operation]);
        inputs.push(...schemasIn(operation.parameters, `${at} parameters`));
        inputs.push(...schemasIn(operation.requestBody, `${at} body`));
      }
    }
    inputs = inputs.filter(([, schema]) => schema.type !== 'object' && schema.type !== 'array');
  });
  afterAll(() => t?.close());

  it('cover the billable, admin and file routes', () => {
    const where = inputs.map(([at]) => at).join('\n');
    for (const route of ['/v1/capture', '/capture', '/v1/website/crawler', '/admin/v1/keys', '/v1/files/']) {
      expect(where).toContain(route);
    }
  });

  it('come with responses: every operation declares its success and its {"error"} answers', () => {
    expect(operations.length).toBeGreaterThan(15);
    const lacking = operations
      .filter(([, operation]) => {
        const responses = (operation.responses ?? {}) as Record<string, Schema>;
        const codes = Object.keys(responses);
        const success = codes.some((code) => code.startsWith('2'));
        const failures = codes.filter((code) => /^[45]/.test(code));
        const errorShaped = failures.every((code) => {
          const schema = (responses[code]?.content as Record<string, Schema> | undefined)?.[
            'application/json'
          ]?.schema as Schema | undefined;
          return (
            JSON.stringify(schema?.properties) ===
            JSON.stringify({
              error: { type: 'string', description: "the spec's message, then ': ' and the detail" },
            })
          );
        });
        return !success || failures.length === 0 || !errorShaped;
      })
      .map(([at]) => at);
    expect(lacking).toEqual([]);
  });

  it('give every number a finite minimum and maximum', () => {
    const unbounded = inputs
      .filter(([, s]) => s.type === 'number' || s.type === 'integer')
      .filter(([, s]) => !Number.isFinite(s.minimum) || !Number.isFinite(s.maximum))
      .map(([at]) => at);
    expect(unbounded).toEqual([]);
  });

  it('give every string a maximum length or a closed set of values', () => {
    const unbounded = inputs
      .filter(([, s]) => s.type === 'string' && s.enum === undefined && s.const === undefined)
      .filter(([, s]) => !Number.isFinite(s.maxLength))
      .map(([at]) => at);
    expect(unbounded).toEqual([]);
  });
});
