import { fastFormats } from 'ajv-formats/dist/formats.js';
import { WebcapError } from '../../../errors.js';
import { type ContactSignals, findContactSignals } from '../../analyze/contact-signals.js';
import { documentBaseUrl } from '../../content/base-url.js';
import { parsePage } from '../../content/parse-page.js';
import type { CheckedSchema, FieldSchema, JsonType } from './check-schema.js';
import { booleanFrom, dateFrom, numberFrom, schemaOrgName } from './coerce.js';
import { type Concept, conceptOf, knownConcept } from './concepts.js';
import { type Entity, type Fact, keyOf, MAX_VALUES, type PageFacts, readPageFacts } from './page-facts.js';

/**
 * The built-in extractor: a caller's JSON Schema filled from what the page states in structured
 * form, with no model. The page's subject is the entity (JSON-LD, microdata or RDFa) that states
 * most of the schema's fields, at least one of them specific to a kind of thing (a price, a
 * date, an ingredient: a name or an image alone is on every thing); each field comes from that
 * entity, else from what the page states of itself (its single `<h1>`, `<meta>` tags, a `<dl>` or
 * two-column table's label, the contact signals). Entities elsewhere on the page (related
 * products, the site's organization) are never read for a field of the subject. A list of objects
 * comes from the subject's property or from the page's repeated entities of one type.
 *
 * It never invents a value: a field the page does not state is null when required (even where the
 * type does not list null) and absent otherwise, and is named in `warnings`; a value that cannot
 * be read as the type asked for is null with a warning. The answer satisfies the schema with null
 * admitted everywhere (CheckedSchema.validateFound), which is asserted before it is returned.
 */

export interface SchemaExtraction {
  readonly data: Record<string, unknown>;
  readonly warnings: string[];
}

const MAX_WARNINGS = 100;
const MAX_ITEMS = 100;

interface Context {
  readonly facts: PageFacts;
  readonly base: URL;
  readonly document: Document;
  readonly pageUrl: string;
  readonly warnings: string[];
  contacts?: ContactSignals;
}

type Outcome = { readonly value: unknown } | { readonly missing: true } | { readonly failed: string };

function warn(ctx: Context, message: string): void {
  if (ctx.warnings.length < MAX_WARNINGS) ctx.warnings.push(message);
}

function typesOf(schema: FieldSchema): readonly JsonType[] {
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type as JsonType];
}

function define(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** The concept a schema property stands for: its name, else its title, else its whole (short) description. */
function conceptFor(name: string, schema: FieldSchema): Concept {
  const key = keyOf(name);
  const byName = knownConcept(key);
  if (byName !== undefined) return byName;
  for (const text of [schema.title, schema.description]) {
    const known = text === undefined || text.length > 40 ? undefined : knownConcept(keyOf(text));
    if (known !== undefined) return known;
  }
  return conceptOf(key);
}

/** The facts at a path of property keys from an entity, at most MAX_VALUES. */
function resolve(entity: Entity, path: readonly string[]): Fact[] {
  let current: Fact[] = [entity];
  for (const key of path) {
    const next: Fact[] = [];
    for (const fact of current) {
      if (typeof fact === 'string') continue;
      for (const value of fact.props.get(key) ?? []) if (next.length < MAX_VALUES) next.push(value);
    }
    current = next;
    if (current.length === 0) break;
  }
  return current;
}

function entityFacts(concept: Concept, entity: Entity): Fact[] {
  for (const path of concept.paths) {
    const found = resolve(entity, path);
    if (found.length > 0) return found;
  }
  return [];
}

function contacts(ctx: Context): ContactSignals {
  ctx.contacts ??= findContactSignals(ctx.document, ctx.pageUrl);
  return ctx.contacts;
}

/** What the page states of itself for a concept: its `<h1>`, its `<meta>`, its labels, its contact signals. */
function pageFacts(concept: Concept, ctx: Context): Fact[] {
  const { facts } = ctx;
  if (concept.kind === 'email') return contacts(ctx).emails;
  if (concept.kind === 'phone') return contacts(ctx).phoneNumbers;
  if (concept.heading === true && facts.h1.length === 1) return [...facts.h1];
  for (const key of concept.meta ?? []) {
    const found = facts.meta.get(key);
    if (found !== undefined) return found;
  }
  for (const key of concept.labels ?? []) {
    const found = facts.labels.get(key);
    if (found !== undefined) return found;
  }
  if (concept.id === 'language' && facts.language !== '') return [facts.language];
  return [];
}

const ADDRESS_PARTS = ['streetaddress', 'addresslocality', 'addressregion', 'postalcode', 'addresscountry'];

/** Levels of nested entities read for one text (an address whose country is a Country). */
const TEXT_MAX_LEVELS = 3;

/** The text an entity stands for where a string is asked: its name, text or value, a postal address's parts, its URL. */
function entityText(entity: Entity, concept: Concept, level = 0): string | null {
  const order =
    concept.kind === 'url'
      ? ['url', 'contenturl']
      : ['name', 'headline', 'text', 'value', 'ratingvalue', 'url'];
  for (const key of order) {
    const value = entity.props.get(key)?.find((fact) => typeof fact === 'string');
    if (value !== undefined) return value as string;
  }
  const parts: string[] = [];
  for (const key of ADDRESS_PARTS) {
    const part = entity.props.get(key)?.[0];
    const text =
      part === undefined || (typeof part !== 'string' && level >= TEXT_MAX_LEVELS)
        ? null
        : typeof part === 'string'
          ? part
          : entityText(part, concept, level + 1);
    if (text !== null && text !== '') parts.push(text);
  }
  return parts.length > 0 ? parts.join(', ') : null;
}

function checkFormat(format: string, text: string): boolean {
  const check = (fastFormats as Record<string, unknown>)[format];
  if (check instanceof RegExp) return check.test(text);
  if (typeof check === 'function') return Boolean(check(text));
  if (typeof check === 'object' && check !== null && 'validate' in check) {
    const validate = (check as { validate: unknown }).validate;
    return validate instanceof RegExp
      ? validate.test(text)
      : Boolean((validate as (s: string) => boolean)(text));
  }
  return true;
}

function dateText(text: string, format: string | undefined): string | null {
  const found = dateFrom(text);
  if (found === null) return null;
  if (format === 'date') return found.date;
  if (found.time === undefined) return format === 'date-time' ? null : found.date;
  if (format === 'date-time' && found.time.offset === '') return null;
  return `${found.date}T${found.time.clock}${found.time.offset}`;
}

function matchEnum(values: readonly (string | number | boolean | null)[], value: unknown): Outcome {
  if (values.includes(value as never)) return { value };
  if (typeof value === 'string') {
    const key = keyOf(value);
    const match = values.find((option) => typeof option === 'string' && keyOf(option) === key);
    if (match !== undefined) return { value: match };
  }
  return { failed: 'is none of the values its enum lists' };
}

/** One fact as a string, number, boolean (or untyped) value the schema asks for. */
function scalar(fact: Fact, schema: FieldSchema, concept: Concept, ctx: Context): Outcome {
  const text = typeof fact === 'string' ? fact : entityText(fact, concept);
  if (text === null || text === '') return { failed: 'is stated as a thing with no name or value' };
  const types = typesOf(schema).filter((t) => t !== 'null');
  let failed = 'could not be read as the type asked';
  for (const type of types.length === 0 ? ['string' as const] : types) {
    let value: unknown = null;
    if (type === 'number' || type === 'integer') {
      const n = numberFrom(text);
      if (n !== null && (type === 'number' || Number.isInteger(n))) value = n;
      else failed = `could not be read as ${type === 'number' ? 'a number' : 'an integer'}`;
    } else if (type === 'boolean') {
      value = booleanFrom(keyOf(schemaOrgName(text)));
      if (value === null) failed = 'could not be read as true or false';
    } else if (type === 'string') {
      value = stringValue(text, schema, concept, ctx);
      if (value === null)
        failed = `could not be read as ${schema.format ?? (concept.kind === 'date' ? 'a date' : 'a URL')}`;
    }
    if (value === null) continue;
    return schema.enum === undefined ? { value } : matchEnum(schema.enum, value);
  }
  return { failed };
}

function stringValue(text: string, schema: FieldSchema, concept: Concept, ctx: Context): string | null {
  const format = schema.format;
  if (format === 'date' || format === 'date-time' || (format === undefined && concept.kind === 'date')) {
    return dateText(text, format);
  }
  let value = text;
  if (concept.kind === 'url' || format === 'uri' || format === 'uri-reference') {
    if (!URL.canParse(text, ctx.base)) return null;
    const url = new URL(text, ctx.base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    value = url.href;
  } else if (concept.kind === 'email') {
    value = (text.toLowerCase().startsWith('mailto:') ? text.slice(7) : text).toLowerCase();
  } else if (concept.kind === 'phone') {
    value = text.toLowerCase().startsWith('tel:') ? text.slice(4) : text;
  } else {
    value = schemaOrgName(text);
  }
  if (format !== undefined && format !== 'date' && format !== 'date-time' && !checkFormat(format, value))
    return null;
  return value;
}

/** A ListItem stands for the thing it lists. */
function unwrap(entity: Entity): Entity {
  if (!entity.types.includes('ListItem')) return entity;
  const item = entity.props.get('item')?.find((fact) => typeof fact !== 'string');
  return (item as Entity | undefined) ?? entity;
}

const SPLIT_CONCEPTS: ReadonlySet<string> = new Set(['keywords', 'section']);

/** The facts found for one field as the value its schema asks for. */
function fill(
  schema: FieldSchema,
  facts: readonly Fact[],
  concept: Concept,
  ctx: Context,
  path: string,
): Outcome {
  const types = typesOf(schema);
  if (types.includes('array')) {
    const items = schema.items ?? {};
    const itemTypes = typesOf(items);
    let list: readonly Fact[] = facts;
    const only = facts[0];
    const splits = SPLIT_CONCEPTS.has(concept.id) || concept.custom === true;
    if (facts.length === 1 && typeof only === 'string' && splits && !itemTypes.includes('object')) {
      list = only
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '');
    }
    const values: unknown[] = [];
    let failures = 0;
    for (const fact of list.slice(0, MAX_ITEMS)) {
      const outcome = itemTypes.includes('object')
        ? objectOf(items, fact, ctx, path)
        : scalar(fact, items, concept, ctx);
      if ('value' in outcome) values.push(outcome.value);
      else if ('failed' in outcome) failures++;
    }
    if (failures > 0)
      warn(ctx, `${path}: ${failures} of the page's values could not be read as the items asked`);
    return values.length > 0
      ? { value: values }
      : failures > 0
        ? { failed: 'has no value that could be read' }
        : { missing: true };
  }
  if (types.includes('object')) {
    for (const fact of facts) {
      const outcome = objectOf(schema, fact, ctx, path);
      if ('value' in outcome) return outcome;
    }
    return { missing: true };
  }
  let failed: string | null = null;
  for (const fact of facts) {
    const outcome = scalar(fact, schema, concept, ctx);
    if ('value' in outcome) return outcome;
    if ('failed' in outcome) failed ??= outcome.failed;
  }
  return failed === null ? { missing: true } : { failed };
}

/** An object schema filled from an entity, or from a bare name when the schema has a name field. */
function objectOf(schema: FieldSchema, fact: Fact, ctx: Context, path: string): Outcome {
  if (typeof fact !== 'string') {
    const { value, found } = fillObject(schema, unwrap(fact), ctx, false, path);
    return found > 0 ? { value } : { missing: true };
  }
  const nameField = Object.entries(schema.properties ?? {}).find(
    ([name, sub]) => conceptFor(name, sub).id === 'name',
  );
  if (nameField === undefined) return { missing: true };
  const value: Record<string, unknown> = {};
  define(value, nameField[0], fact);
  for (const name of schema.required ?? []) if (name !== nameField[0]) define(value, name, null);
  return { value };
}

interface Filled {
  readonly value: Record<string, unknown>;
  /** Fields given a value. */
  readonly found: number;
}

/** Entities of the page that could be the items of a list: top-level ones and the items of ItemLists. */
function listCandidates(facts: PageFacts): Entity[] {
  const out: Entity[] = [];
  for (const entity of facts.entities) {
    if (out.length >= MAX_VALUES * 10) break;
    if (entity.types.includes('ItemList')) {
      for (const item of entity.props.get('itemlistelement') ?? [])
        if (typeof item !== 'string') out.push(unwrap(item));
    } else out.push(entity);
  }
  return out;
}

/** The page's repeated entities of one type that state the items' fields: two at least. */
function repeatedEntities(items: FieldSchema, ctx: Context): Entity[] {
  const scored = listCandidates(ctx.facts)
    .map((entity) => ({ entity, score: score(items, entity) }))
    .filter((entry) => entry.score > 0);
  const best = scored.reduce<(typeof scored)[number] | null>(
    (top, entry) => (top === null || entry.score > top.score ? entry : top),
    null,
  );
  if (best === null) return [];
  const kind = best.entity.types[0];
  const same = scored
    .filter((entry) =>
      kind === undefined ? entry.entity.types.length === 0 : entry.entity.types.includes(kind),
    )
    .map((entry) => entry.entity)
    .slice(0, MAX_ITEMS);
  // One entity is the page's subject or an aside, not a list.
  return same.length >= 2 ? same : [];
}

function fillObject(
  schema: FieldSchema,
  entity: Entity | null,
  ctx: Context,
  pageLevel: boolean,
  path: string,
): Filled {
  const value: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  let found = 0;
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    const concept = conceptFor(name, sub);
    const here = path === '' ? name : `${path}.${name}`;
    const types = typesOf(sub);
    let facts = entity === null ? [] : entityFacts(concept, entity);
    if (facts.length === 0 && pageLevel) facts = pageFacts(concept, ctx);
    else if (pageLevel && (concept.kind === 'email' || concept.kind === 'phone') && types.includes('array')) {
      facts = [...facts, ...pageFacts(concept, ctx)];
    }
    if (
      facts.length === 0 &&
      pageLevel &&
      types.includes('array') &&
      typesOf(sub.items ?? {}).includes('object')
    ) {
      facts = repeatedEntities(sub.items ?? {}, ctx);
    }
    let outcome: Outcome = facts.length === 0 ? { missing: true } : fill(sub, facts, concept, ctx, here);
    if ('missing' in outcome && pageLevel && types.includes('object')) {
      const nested = fillObject(sub, null, ctx, true, here);
      if (nested.found > 0) outcome = { value: nested.value };
    }
    if ('value' in outcome) {
      define(value, name, outcome.value);
      found++;
    } else if ('failed' in outcome) {
      define(value, name, null);
      warn(ctx, `${here}: the page's value ${outcome.failed}; left null`);
    } else {
      if (required.has(name)) define(value, name, null);
      warn(ctx, `${here}: not stated on the page`);
    }
  }
  return { value, found };
}

/** How much of an object schema an entity states: specific fields count twice, and at least one is needed when the schema has any. */
function score(schema: FieldSchema, entity: Entity): number {
  let specific = 0;
  let generic = 0;
  let schemaHasSpecific = false;
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    const concept = conceptFor(name, sub);
    if (concept.generic !== true) schemaHasSpecific = true;
    if (entityFacts(concept, entity).length === 0) continue;
    if (concept.generic === true) generic++;
    else specific++;
  }
  if (schemaHasSpecific && specific === 0) return 0;
  return specific * 2 + generic;
}

/** The page's subject for a schema: the first entity with the best score above zero. */
function subject(schema: FieldSchema, facts: PageFacts): Entity | null {
  let best: Entity | null = null;
  let bestScore = 0;
  for (const entity of facts.entities) {
    const points = score(schema, entity);
    if (points > bestScore) {
      best = entity;
      bestScore = points;
    }
  }
  return best;
}

/**
 * The caller's checked schema filled from a page (its parsed document, or its HTML), with the
 * warnings of every field left null or absent. Synchronous and bounded (page-facts.ts).
 */
export function extractBySchema(
  page: Document | string,
  pageUrl: string,
  checked: CheckedSchema,
): SchemaExtraction {
  const document = typeof page === 'string' ? parsePage(page).document : page;
  const facts = readPageFacts(document);
  const ctx: Context = { facts, base: documentBaseUrl(document, pageUrl), document, pageUrl, warnings: [] };
  const { value } = fillObject(checked.schema, subject(checked.schema, facts), ctx, true, '');
  if (!checked.validateFound(value)) {
    throw new WebcapError('internal', 'the schema extractor built an answer its schema refuses');
  }
  return { data: value, warnings: ctx.warnings };
}
