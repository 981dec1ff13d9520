import { parseHTML } from 'linkedom';
import { invalidParam } from '../../errors.js';
import type { Rule, RuleField, RuleValue } from './rules.js';

/** The bounds on a caller's `extract_rules` (docs/extract.md, "Bounds"). */
export const RULES_LIMITS = {
  /** Bytes of the rules as JSON. */
  bytes: 65_536,
  /** Levels of rules: the top level is 1, each nested `output` one more. */
  depth: 8,
  /** Rules at every level together. */
  rules: 200,
  /** Characters of one selector. */
  selectorChars: 512,
  /** Characters of a field's name and of an attribute's name. */
  nameChars: 128,
} as const;

const TYPES = ['text', 'html', 'attribute', 'list', 'object', 'item'] as const;
type RuleType = (typeof TYPES)[number];
const KEYS = new Set(['selector', 'type', 'attribute', 'output']);

/** A document with nothing in it: selectors are compiled against it by the DOM the extraction uses. */
let empty: Document | null = null;

/** Why linkedom (the DOM extraction runs on) cannot compile `selector`, or null when it can. */
function selectorError(selector: string): string | null {
  empty ??= (parseHTML('<html><head></head><body></body></html>') as unknown as { document: Document })
    .document;
  try {
    empty.querySelector(selector);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : 'it is not a selector';
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

class RulesReader {
  private rules = 0;

  private selectorOf(path: string, raw: unknown): string {
    if (typeof raw !== 'string' || raw.trim() === '') throw invalidParam(path, 'must be a CSS selector');
    const selector = raw.trim();
    if (selector.length > RULES_LIMITS.selectorChars) {
      throw invalidParam(path, `is longer than ${RULES_LIMITS.selectorChars} characters`);
    }
    const error = selectorError(selector);
    if (error !== null) throw invalidParam(path, `is not a CSS selector the page's DOM can match: ${error}`);
    return selector;
  }

  private nameOf(path: string, raw: unknown): string {
    if (typeof raw !== 'string' || raw === '' || raw.length > RULES_LIMITS.nameChars) {
      throw invalidParam(path, `must be a name of 1 to ${RULES_LIMITS.nameChars} characters`);
    }
    return raw;
  }

  /** The value a rule takes from each element: from `output` (ScrapingBee's text, html, @attribute or nested rules), `attribute` or `type`. */
  private valueOf(path: string, spec: Record<string, unknown>, type: RuleType, depth: number): RuleValue {
    const { output, attribute } = spec;
    if (attribute !== undefined && output !== undefined) {
      throw invalidParam(`${path}.attribute`, 'and output cannot both be given');
    }
    if (isObject(output)) {
      if (type !== 'list' && type !== 'object' && type !== 'item') {
        throw invalidParam(`${path}.output`, `is for type list or object, not ${type}`);
      }
      return { kind: 'object', fields: this.fieldsOf(`${path}.output`, output, depth + 1) };
    }
    if (typeof output === 'string') {
      if (output === 'text' || output === 'html') return { kind: output };
      if (output.startsWith('@'))
        return { kind: 'attribute', attribute: this.nameOf(`${path}.output`, output.slice(1)) };
      throw invalidParam(`${path}.output`, 'must be nested rules, "text", "html" or "@attribute"');
    }
    if (output !== undefined) throw invalidParam(`${path}.output`, 'must be nested rules');
    if (attribute !== undefined) {
      if (type !== 'attribute' && type !== 'list' && type !== 'item') {
        throw invalidParam(`${path}.attribute`, `is for type attribute or list, not ${type}`);
      }
      return { kind: 'attribute', attribute: this.nameOf(`${path}.attribute`, attribute) };
    }
    if (type === 'attribute') throw invalidParam(`${path}.attribute`, 'is required with type attribute');
    if (type === 'object') throw invalidParam(`${path}.output`, 'is required with type object');
    return { kind: type === 'html' ? 'html' : 'text' };
  }

  private ruleOf(path: string, raw: unknown, depth: number): Rule {
    this.rules += 1;
    if (this.rules > RULES_LIMITS.rules) {
      throw invalidParam(path, `is past the ${RULES_LIMITS.rules} rules extract_rules may hold in all`);
    }
    if (typeof raw === 'string')
      return { selector: this.selectorOf(path, raw), many: false, value: { kind: 'text' } };
    if (!isObject(raw))
      throw invalidParam(path, 'must be a CSS selector or a rule {selector, type, attribute, output}');
    for (const key of Object.keys(raw)) {
      if (!KEYS.has(key))
        throw invalidParam(`${path}.${key}`, 'is not a rule member (selector, type, attribute, output)');
    }
    const selector = this.selectorOf(`${path}.selector`, raw.selector);
    const given =
      raw.type ?? (isObject(raw.output) ? 'object' : raw.attribute !== undefined ? 'attribute' : 'text');
    if (typeof given !== 'string' || !(TYPES as readonly string[]).includes(given)) {
      throw invalidParam(`${path}.type`, 'must be one of text, html, attribute, list, object');
    }
    const type = given as RuleType;
    return { selector, many: type === 'list', value: this.valueOf(path, raw, type, depth) };
  }

  fieldsOf(path: string, raw: Record<string, unknown>, depth: number): RuleField[] {
    if (depth > RULES_LIMITS.depth)
      throw invalidParam(path, `is nested deeper than ${RULES_LIMITS.depth} levels`);
    const entries = Object.entries(raw);
    if (entries.length === 0) throw invalidParam(path, 'has no rules');
    return entries.map(([name, spec]) => {
      const fieldPath = `${path}.${name}`;
      this.nameOf(fieldPath, name);
      return { name, path: fieldPath, rule: this.ruleOf(fieldPath, spec, depth) };
    });
  }
}

/**
 * The caller's `extract_rules` (an object, or its JSON text from a query string) as validated
 * rules. Each bound (bytes, depth, rules in all, selector length) and each wrong member is a 400
 * naming its path (`extract_rules.products.output.name`); so is a selector the DOM cannot compile.
 * The shape is checked, depth first, before the rules are measured as JSON, so a deep value never
 * reaches a recursive serializer.
 */
export function rulesOf(raw: unknown): RuleField[] {
  let value = raw;
  if (typeof raw === 'string') {
    if (Buffer.byteLength(raw) > RULES_LIMITS.bytes) {
      throw invalidParam('extract_rules', `is larger than ${RULES_LIMITS.bytes} bytes`);
    }
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalidParam('extract_rules', 'is not valid JSON');
    }
  }
  if (!isObject(value)) throw invalidParam('extract_rules', 'must be an object of field name → rule');
  const fields = new RulesReader().fieldsOf('extract_rules', value, 1);
  if (Buffer.byteLength(JSON.stringify(value)) > RULES_LIMITS.bytes) {
    throw invalidParam('extract_rules', `is larger than ${RULES_LIMITS.bytes} bytes`);
  }
  return fields;
}
