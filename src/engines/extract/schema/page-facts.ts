import { type JsonLdNode, readJsonLd } from '../../content/json-ld.js';

/**
 * What a page states in structured form, read once for the schema extractor: the entities of its
 * JSON-LD, microdata and RDFa-lite (schema.org things with their properties), its `<meta>` tags,
 * the label/value pairs of its `<dl>` lists and two-column tables, and its `<h1>` headings.
 * Property names are keys: lower-cased with everything but letters and digits dropped, so that
 * `datePublished`, `date_published` and `og:title` read as `datepublished` and `ogtitle`.
 * Every loop is bounded: elements walked, entities, values per property, depth, text length.
 */

export interface Entity {
  /** schema.org type names (the last segment of a type URL). */
  readonly types: readonly string[];
  readonly props: Map<string, Fact[]>;
  readonly source: 'json-ld' | 'microdata' | 'rdfa';
}
export type Fact = string | Entity;

export interface PageFacts {
  /** Entities not held by another, in page order (JSON-LD first). */
  readonly entities: readonly Entity[];
  /** `<meta>` content by name, property or itemprop key; `<title>`, `<link rel=canonical>` as `pagetitle`, `canonical`. */
  readonly meta: Map<string, string[]>;
  /** `<dt>`/`<dd>` and two-cell table rows, by the label's key. */
  readonly labels: Map<string, string[]>;
  readonly h1: readonly string[];
  readonly language: string;
}

const MAX_ELEMENTS = 200_000;
const MAX_ENTITIES = 2_000;
export const MAX_VALUES = 100;
const MAX_DEPTH = 12;
const TEXT_MAX_CHARS = 10_000;
const LABEL_MAX_CHARS = 80;
/** Nodes visited to read element texts, over the whole page: nested properties never cost n². */
const TEXT_MAX_NODES = 200_000;

/** A property name as a key: ASCII letters and digits lower-cased, other ASCII dropped, the rest kept. */
export function keyOf(name: string): string {
  let key = '';
  for (const char of name.slice(0, 200)) {
    const code = char.charCodeAt(0);
    if (code >= 65 && code <= 90) key += char.toLowerCase();
    else if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code > 127) key += char;
  }
  return key;
}

/** Whitespace collapsed and trimmed, cut at TEXT_MAX_CHARS. */
export function cleanText(text: string): string {
  return text
    .slice(0, TEXT_MAX_CHARS * 2)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, TEXT_MAX_CHARS);
}

/** `https://schema.org/Product`, `schema:Product`, `Product` → `Product`. */
function lastSegment(name: string): string {
  const cut = Math.max(name.lastIndexOf('/'), name.lastIndexOf('#'), name.lastIndexOf(':'));
  return name.slice(cut + 1);
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  if (key === '') return;
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else if (list.length < MAX_VALUES) list.push(value);
}

class Budget {
  entities = 0;
  textNodes = 0;
  take(): boolean {
    return this.entities++ < MAX_ENTITIES;
  }

  /** An element's text, as textContent would give it, read up to TEXT_MAX_CHARS and within the page's node budget. */
  text(element: Element): string {
    let text = '';
    let node: Node | null = element;
    // Document order through the subtree by sibling links, with no child lists built.
    while (node !== null && text.length < TEXT_MAX_CHARS && this.textNodes++ < TEXT_MAX_NODES) {
      if (node.nodeType === 3) text += node.nodeValue ?? '';
      if (node.firstChild !== null) node = node.firstChild;
      else {
        while (node !== null && node !== element && node.nextSibling === null) node = node.parentNode;
        node = node === null || node === element ? null : node.nextSibling;
      }
    }
    return cleanText(text);
  }
}

const isNode = (value: unknown): value is JsonLdNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function typesOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list
    .filter((t): t is string => typeof t === 'string')
    .slice(0, 10)
    .map(lastSegment);
}

/** JSON-LD nodes as entities; a bare `{"@id"}` reference is replaced by the node it names, once. */
function jsonLdEntities(document: Document, budget: Budget): Entity[] {
  const { nodes } = readJsonLd(document);
  const byId = new Map<string, JsonLdNode>();
  for (const node of nodes)
    if (typeof node['@id'] === 'string' && Object.keys(node).length > 1) byId.set(node['@id'], node);
  // References are followed within the same depth bound and entity budget, so a cycle of them ends.
  const facts = (value: unknown, depth: number, out: Fact[]) => {
    if (out.length >= MAX_VALUES) return;
    if (typeof value === 'string') out.push(cleanText(value));
    else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
    else if (Array.isArray(value)) for (const item of value.slice(0, MAX_VALUES)) facts(item, depth, out);
    else if (isNode(value)) {
      if ('@value' in value) return facts(value['@value'], depth, out);
      const id = value['@id'];
      const bare = typeof id === 'string' && Object.keys(value).length === 1;
      const node = bare ? byId.get(id) : value;
      if (node === undefined) out.push(cleanText(id as string));
      else if (depth < MAX_DEPTH && budget.take()) out.push(entityOf(node, depth + 1));
    }
  };
  const entityOf = (node: JsonLdNode, depth: number): Entity => {
    const props = new Map<string, Fact[]>();
    for (const [name, value] of Object.entries(node)) {
      if (name.startsWith('@')) continue;
      const out: Fact[] = [];
      facts(value, depth, out);
      for (const fact of out) push(props, keyOf(lastSegment(name)), fact);
    }
    return { types: typesOf(node['@type']), props, source: 'json-ld' };
  };
  const entities: Entity[] = [];
  for (const node of nodes) {
    if (!budget.take()) break;
    entities.push(entityOf(node, 1));
  }
  return entities;
}

// A Map, not an object: an element's name is the page's, and `constructor` is no key here.
const ATTRIBUTE_VALUES: ReadonlyMap<string, string> = new Map([
  ['meta', 'content'],
  ['img', 'src'],
  ['audio', 'src'],
  ['video', 'src'],
  ['source', 'src'],
  ['embed', 'src'],
  ['iframe', 'src'],
  ['track', 'src'],
  ['a', 'href'],
  ['area', 'href'],
  ['link', 'href'],
  ['object', 'data'],
  ['data', 'value'],
  ['meter', 'value'],
  ['time', 'datetime'],
]);

/** An itemprop's or RDFa property's value (HTML's microdata value rules; RDFa's `content` first). */
function elementValue(element: Element, name: string, budget: Budget): string {
  const content = element.getAttribute('content');
  if (content !== null) return cleanText(content);
  const attribute = ATTRIBUTE_VALUES.get(name);
  const stated = attribute === undefined ? null : element.getAttribute(attribute);
  if (stated !== null) return cleanText(stated);
  return budget.text(element);
}

function names(value: string | null): string[] {
  if (value === null) return [];
  return value
    .trim()
    .split(/\s+/)
    .slice(0, 10)
    .map((name) => keyOf(lastSegment(name)))
    .filter((name) => name !== '');
}

/** The cells' texts of a table row with exactly two cells, else null. */
function twoCells(row: Element, budget: Budget): [string, string] | null {
  const cells: Element[] = [];
  for (let child = row.firstElementChild; child !== null; child = child.nextElementSibling) {
    const name = child.localName.toLowerCase();
    if (name === 'td' || name === 'th') cells.push(child);
    if (cells.length > 2) return null;
  }
  const [label, value] = cells;
  return label === undefined || value === undefined ? null : [budget.text(label), budget.text(value)];
}

/** A label's key: its text before any trailing colon, when short enough to be a label. */
function labelKey(text: string): string {
  const label = text.endsWith(':') ? text.slice(0, -1) : text;
  return label.length > LABEL_MAX_CHARS ? '' : keyOf(label);
}

const SKIPPED: ReadonlySet<string> = new Set(['script', 'style', 'noscript', 'template', 'svg']);

/** Everything the schema extractor reads from a page, in one walk of its elements. */
export function readPageFacts(document: Document): PageFacts {
  const budget = new Budget();
  const entities: Entity[] = jsonLdEntities(document, budget);
  const meta = new Map<string, string[]>();
  const labels = new Map<string, string[]>();
  const h1: string[] = [];
  const root = document.documentElement;
  const language = root?.getAttribute('lang')?.trim().slice(0, 35) ?? '';

  // Each element with the microdata or RDFa entity its properties go to (null outside any).
  const stack: [Element, Entity | null][] = root === null ? [] : [[root, null]];
  let walked = 0;
  while (stack.length > 0 && walked++ < MAX_ELEMENTS) {
    const [element, scope] = stack.pop() as [Element, Entity | null];
    const name = element.localName.toLowerCase();
    if (SKIPPED.has(name)) continue;
    const itemprops = names(element.getAttribute('itemprop'));
    const rdfaProps =
      element.hasAttribute('property') && scope?.source === 'rdfa'
        ? names(element.getAttribute('property'))
        : [];
    let inner = scope;
    const opensMicrodata = element.hasAttribute('itemscope');
    const opensRdfa = !opensMicrodata && element.hasAttribute('typeof');
    if ((opensMicrodata || opensRdfa) && budget.take()) {
      const typeList = (element.getAttribute(opensMicrodata ? 'itemtype' : 'typeof') ?? '').trim();
      const entity: Entity = {
        types: typeList === '' ? [] : typeList.split(/\s+/).slice(0, 10).map(lastSegment),
        props: new Map(),
        source: opensMicrodata ? 'microdata' : 'rdfa',
      };
      const heldBy = opensMicrodata ? itemprops : rdfaProps;
      if (scope !== null && heldBy.length > 0) for (const prop of heldBy) push(scope.props, prop, entity);
      else entities.push(entity);
      inner = entity;
    } else if (scope !== null) {
      const props = scope.source === 'microdata' ? itemprops : rdfaProps;
      if (props.length > 0) {
        const value = elementValue(element, name, budget);
        if (value !== '') for (const prop of props) push(scope.props, prop, value);
      }
    }
    // A <meta> inside an item states that item's property, not the page's.
    if (name === 'meta' && scope === null) {
      const key =
        element.getAttribute('property') ?? element.getAttribute('name') ?? element.getAttribute('itemprop');
      const content = element.getAttribute('content');
      if (key !== null && content !== null && cleanText(content) !== '')
        push(meta, keyOf(key), cleanText(content));
    } else if (name === 'title') {
      push(meta, 'pagetitle', budget.text(element));
    } else if (
      name === 'link' &&
      (element.getAttribute('rel') ?? '').toLowerCase().split(/\s+/).includes('canonical')
    ) {
      const href = element.getAttribute('href');
      if (href !== null) push(meta, 'canonical', href.trim());
    } else if (name === 'h1') {
      const text = budget.text(element);
      if (text !== '' && h1.length < MAX_VALUES) h1.push(text);
    } else if (name === 'dt') {
      let next = element.nextElementSibling;
      const key = labelKey(budget.text(element));
      for (let n = 0; next !== null && next.localName.toLowerCase() === 'dd' && n < MAX_VALUES; n++) {
        push(labels, key, budget.text(next));
        next = next.nextElementSibling;
      }
    } else if (name === 'tr') {
      const cells = twoCells(element, budget);
      if (cells !== null && cells[1] !== '') push(labels, labelKey(cells[0]), cells[1]);
    }
    // Sibling links, not `children`: linkedom builds that list by walking the whole subtree.
    const children: Element[] = [];
    for (let child = element.firstElementChild; child !== null; child = child.nextElementSibling)
      children.push(child);
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i] as Element, inner]);
  }
  return { entities, meta, labels, h1, language };
}
