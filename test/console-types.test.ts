import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CONSOLE_TYPES_FILE, consoleDocument, consoleTypes } from '../scripts/generate-console-types.js';

/*
 * The console's API types are generated from the console routes' schemas (docs/console.md): a route
 * whose schema changed without `npm run console:types` leaves the front end reading answers that
 * are not there, and a name in console/src/api/types.ts that no longer fits the generated types
 * fails the console's type check.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('the console API types', () => {
  it("are what the console routes' schemas generate now (console/src/api/console-api.ts)", async () => {
    const generated = await consoleTypes(await consoleDocument());
    const committed = fs.readFileSync(CONSOLE_TYPES_FILE, 'utf8');
    expect(
      committed === generated,
      'console/src/api/console-api.ts is stale against the console routes: run `npm run console:types` and commit it',
    ).toBe(true);
  });

  it('cover every console API route, and none of the public API', async () => {
    const routes = Object.keys((await consoleDocument()).paths ?? {});
    expect(routes).toEqual(expect.arrayContaining(['/console/api/session', '/console/api/operator/health']));
    expect(routes.filter((route) => !route.startsWith('/console/api/'))).toEqual([]);
  });

  it('type-check the front end that reads them', async () => {
    const tsc = path.join(ROOT, 'node_modules/.bin/tsc');
    // tsc prints its errors on stdout, which the rejection's message leaves out.
    await promisify(execFile)(tsc, ['-p', 'console/tsconfig.json'], { cwd: ROOT }).catch(
      (error: { stdout?: string }) => {
        throw new Error(`the console does not type-check:\n${error.stdout}`);
      },
    );
  });
});
