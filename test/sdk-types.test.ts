import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SDK_TYPES_FILE, sdkTypes, servedDocument } from '../scripts/generate-sdk-types.js';

/*
 * The SDK's types are generated from the OpenAPI document the service serves: a route whose
 * schema changed without `npm run sdk:types` leaves the SDK describing an API that is not there.
 */
describe('the SDK sources', () => {
  it('are what the served /openapi.json generates now (clients/typescript/src/openapi.ts)', async () => {
    const generated = await sdkTypes(await servedDocument());
    const committed = fs.readFileSync(SDK_TYPES_FILE, 'utf8');
    expect(
      committed === generated,
      'clients/typescript/src/openapi.ts is stale against GET /openapi.json: run `npm run sdk:types` and commit it',
    ).toBe(true);
  });

  // The SDK runs wherever fetch and WebCrypto exist (Deno, Bun, workers, browsers), not only Node.
  it('import nothing from Node', () => {
    const dir = path.dirname(SDK_TYPES_FILE);
    for (const name of fs.readdirSync(dir)) {
      expect(fs.readFileSync(path.join(dir, name), 'utf8'), name).not.toMatch(/from ['"]node:|require\(/);
    }
  });
});
