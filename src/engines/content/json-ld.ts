/**
 * The one reader of a page's JSON-LD: a script is read only within these bounds, because what
 * reads it next (defuddle's schema.org pass, serializers) recurses once per level, and a page of
 * 200,000 nested arrays exhausts the stack. Real JSON-LD nests under ten levels.
 */
export const JSON_LD_MAX_CHARS = 1_000_000;
export const JSON_LD_MAX_DEPTH = 64;

const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The deepest nesting of arrays and objects in JSON text, stopping past `max`; one pass, strings skipped. */
function depthWithin(source: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > max) return false;
    } else if ((code === CLOSE_ARRAY || code === CLOSE_OBJECT) && depth > 0) {
      depth--;
    }
  }
  return true;
}

/** Whether a JSON-LD script's text is within the bounds that every reader of it may rely on. */
export function jsonLdWithinBounds(source: string): boolean {
  return source.length <= JSON_LD_MAX_CHARS && depthWithin(source, JSON_LD_MAX_DEPTH);
}

/** A JSON-LD script's value, or undefined when it is out of bounds or not JSON. */
export function parseJsonLd(source: string): unknown {
  if (!jsonLdWithinBounds(source)) return undefined;
  try {
    return JSON.parse(source);
  } catch {
    return undefined;
  }
}
