import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SDK_TYPES_FILE, sdkTypes, servedDocument } from '../scripts/generate-sdk-types.js';

/*
 * The SDK's types are generated from the OpenAPI document the service serves: a route whose
 * schema changed without `npm run sdk:types` leaves the SDK describing an API that is not there.
 */
describe('the SDK types (clients/typescript/src/openapi.ts)', () => {
  it('are what the served /openapi.json generates now', async () => {
    const generated = await sdkTypes(await servedDocument());
    const committed = fs.readFileSync(SDK_TYPES_FILE, 'utf8');
    expect(
      committed === generated,
      'clients/typescript/src/openapi.ts is stale against GET /openapi.json: run `npm run sdk:types` and commit it',
    ).toBe(true);
  });
});
