import type { TSchema } from 'typebox';

/**
 * The query-string parameters of `params` that are lists of fixed words (`formats`): the ones a
 * caller may also write as `a,b` or as the JSON text `["a","b"]`, as the other list parameters
 * of a query string are written, beside repeating the parameter.
 */
export function wordListParams(params: TSchema): string[] {
  const properties =
    (params as { properties?: Record<string, { type?: unknown; items?: { enum?: unknown } }> }).properties ??
    {};
  return Object.entries(properties)
    .filter(([, schema]) => schema.type === 'array' && Array.isArray(schema.items?.enum))
    .map(([name]) => name);
}

/**
 * Rewrites, in a parsed query string, each of `names` given as `a,b` or `["a","b"]` into the list
 * its schema then validates; words never hold a comma or begin with `[`, so nothing else is
 * read differently. Linear in the values' length.
 */
export function splitWordLists(query: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) {
    const value = query[name];
    const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value : null;
    if (values === null) continue;
    query[name] = values.flatMap((item) => (typeof item === 'string' ? words(item) : [item]));
  }
}

function words(text: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // Not JSON: the schema names the parameter and what it takes.
    }
    return [text];
  }
  return trimmed
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
