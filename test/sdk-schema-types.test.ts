import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * The SDK types an extraction's data from the schema written in the call (issue 35): compiled
 * here with TypeScript itself, so that a wrong type is a diagnostic and a `@ts-expect-error` that
 * no longer errs is one too.
 */

const SDK = path.resolve(import.meta.dirname, '../clients/typescript/src/index.js');

function diagnosticsOf(code: string): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-types-'));
  const file = path.join(dir, 'snippet.ts');
  fs.writeFileSync(file, code.replaceAll('SDK', SDK));
  try {
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: true,
    });
    return ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName === file)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the SDK types extract by its schema', () => {
  it('reads objects, arrays, enums, required (nullable) and optional fields from the schema as given', () => {
    const diagnostics = diagnosticsOf(`
      import { Webcap } from 'SDK';
      const webcap = new Webcap({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'k' });
      export async function read() {
        const { data } = await webcap.extract({
          url: 'https://shop.example/p/1',
          schema: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              price: { type: 'number' },
              tags: { type: 'array', items: { type: 'string' } },
              stock: { enum: ['in', 'out'] },
              maker: { type: 'object', properties: { name: { type: ['string', 'null'] } }, required: ['name'] },
            },
            required: ['name', 'price'],
          },
        });
        const name: string | null = data.name;
        const price: number | null = data.price;
        const tags: string[] | undefined = data.tags;
        const stock: 'in' | 'out' | undefined = data.stock;
        const maker: string | null | undefined = data.maker?.name;
        // @ts-expect-error a price is a number
        const wrong: string | null = data.price;
        // @ts-expect-error a required field may be null (the built-in extractor leaves it so)
        const sure: string = data.name;
        // @ts-expect-error an optional field may be absent
        const present: string[] = data.tags;
        // @ts-expect-error no such field
        data.colour;
        return [name, price, tags, stock, maker, wrong, sure, present];
      }
      export async function rules() {
        const { data } = await webcap.extract({ url: 'https://shop.example/', extract_rules: { title: 'h1' } });
        const title: unknown = data.title;
        // @ts-expect-error a schema or rules, not both
        await webcap.extract({ url: 'https://shop.example/', schema: { type: 'object' }, extract_rules: { t: 'h1' } });
        return title;
      }
    `);
    expect(diagnostics).toEqual([]);
  });
});
