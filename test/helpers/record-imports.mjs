// Loaded with `node --import` by test/cli-start-processes.test.ts: appends the URL of every module
// the process resolves through the ESM loader (packages' entry points included) to the file named
// by WEBCAP_TEST_IMPORTS. The hooks run on a thread of their own, so they write the file
// themselves, synchronously, rather than message this one.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.WEBCAP_TEST_IMPORTS, resolved.url + '\\n');
  return resolved;
}
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
