import type { ErrorObject } from 'ajv';

const MAX_ERRORS = 10;
const MAX_ERRORS_CHARS = 1_000;

/** `/offers/0/price` as `data.offers[0].price`. */
function pathOf(pointer: string): string {
  let path = 'data';
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    path += /^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`;
  }
  return path;
}

/** ajv's complaints in a few words each, bounded, with no value from the answer in them. */
export function describeSchemaErrors(errors: readonly ErrorObject[] | null | undefined): string {
  const text = (errors ?? [])
    .slice(0, MAX_ERRORS)
    .map((error) => `${pathOf(error.instancePath)} ${error.message ?? 'is invalid'}`)
    .join('; ');
  return text.length <= MAX_ERRORS_CHARS ? text : `${text.slice(0, MAX_ERRORS_CHARS)}…`;
}
