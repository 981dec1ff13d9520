/**
 * The one reader of a page's JSON-LD, for every part of webcap that looks at it (metadata, the
 * country of contact numbers). A script is read only within these bounds, because what reads it
 * next (serializers) recurses once per level, and a page of 200,000 nested arrays exhausts the
 * stack. Real JSON-LD nests under ten levels.
 */
export const JSON_LD_MAX_CHARS = 1_000_000;
export const JSON_LD_MAX_DEPTH = 64;
/** Nodes read across all of a page's JSON-LD scripts; the scripts after the one that reaches it are not read. */
export const JSON_LD_MAX_NODES = 1_000;

export type JsonLdNode = Readonly<Record<string, unknown>>;

/** A page's JSON-LD as read once: shared by its readers, so never mutated. */
export interface JsonLd {
  /** Each script's value, in page order. */
  readonly values: readonly unknown[];
  /** The nodes: each value's top-level object, the items of a top-level array and the items of their `@graph`, in page order. */
  readonly nodes: readonly JsonLdNode[];
}

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
function parseJsonLd(source: string): unknown {
  if (!jsonLdWithinBounds(source)) return undefined;
  try {
    return JSON.parse(source);
  } catch {
    return undefined;
  }
}

function isNode(value: unknown): value is JsonLdNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether `element` is a JSON-LD script: `<script type="application/ld+json">`, the type compared
 * ASCII case-insensitively and without surrounding whitespace, as the HTML standard compares MIME
 * types.
 */
export function isJsonLdScript(element: Element): boolean {
  return (
    element.localName.toLowerCase() === 'script' &&
    (element.getAttribute('type') ?? '').trim().toLowerCase() === 'application/ld+json'
  );
}

const read = new WeakMap<Document, JsonLd>();

/**
 * The page's JSON-LD: every JSON-LD script within bounds, parsed alone (a broken one is skipped),
 * until JSON_LD_MAX_NODES nodes are found. Read once per document: the metadata and the contact
 * signals of one page share it.
 */
export function readJsonLd(document: Document): JsonLd {
  const known = read.get(document);
  if (known !== undefined) return known;
  const values: unknown[] = [];
  const nodes: JsonLdNode[] = [];
  const push = (value: unknown) => {
    if (isNode(value) && nodes.length < JSON_LD_MAX_NODES) nodes.push(value);
  };
  for (const script of Array.from(document.querySelectorAll('script[type]'))) {
    if (nodes.length >= JSON_LD_MAX_NODES) break;
    if (!isJsonLdScript(script)) continue;
    const value = parseJsonLd(script.textContent ?? '');
    if (value === undefined) continue;
    values.push(value);
    for (const item of Array.isArray(value) ? value : [value]) {
      push(item);
      const graph = isNode(item) ? item['@graph'] : undefined;
      for (const member of Array.isArray(graph) ? graph : [graph]) push(member);
    }
  }
  const found = { values, nodes };
  read.set(document, found);
  return found;
}
