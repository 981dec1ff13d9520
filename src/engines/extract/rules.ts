import { documentBaseUrl } from '../content/base-url.js';
import { parsePage } from '../content/parse-page.js';

/** What a rule takes from each element it matches. */
export type RuleValue =
  | { readonly kind: 'text' }
  | { readonly kind: 'html' }
  | { readonly kind: 'attribute'; readonly attribute: string }
  | { readonly kind: 'object'; readonly fields: readonly RuleField[] };

/** One validated rule (rules-bounds.ts): its selector, and whether it answers the first match or all of them. */
export interface Rule {
  readonly selector: string;
  readonly many: boolean;
  readonly value: RuleValue;
}

/** A field of the answer, the rule that fills it, and its parameter path (`extract_rules.products.output.name`) for warnings. */
export interface RuleField {
  readonly name: string;
  readonly path: string;
  readonly rule: Rule;
}

/** The bounds on what one extraction answers. */
export const ANSWER_LIMITS = {
  /** Items a list rule answers at most, per element it is read in. */
  listItems: 1000,
  /** Characters of text, HTML and attribute values in the whole answer. */
  answerChars: 5_000_000,
  /**
   * Values in the whole answer (fields, list items, nulls and empty strings too): lists nested in
   * lists multiply, and 1,000 items at each of 8 levels would hold more than any heap.
   */
  answerValues: 1_000_000,
} as const;

/**
 * Attributes whose values are URLs: made absolute against the page's base URL, as a browser
 * resolves them (https://html.spec.whatwg.org/#dynamic-changes-to-base-urls). `data-src` is the
 * lazy image's source, which Markdown conversion reads too.
 */
const URL_ATTRIBUTES = new Set(['href', 'src', 'data-src', 'poster', 'action', 'formaction', 'cite']);

/** One page's rules extraction: the serialized DOM, its URL and the validated rules. Plain data, so it crosses to an extractor process. */
export interface RulesInput {
  readonly html: string;
  readonly pageUrl: string;
  readonly fields: readonly RuleField[];
}

export type RulesOutput =
  | { readonly ok: true; readonly data: Record<string, unknown>; readonly warnings: string[] }
  /** A selector the DOM could not compile (the edge checks them first: this is the backstop). */
  | { readonly ok: false; readonly badSelector: string; readonly message: string }
  | { readonly ok: false; readonly tooLarge: true };

class BadSelector extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

class TooLarge extends Error {}

/** Misses and cuts per rule, summed over every element a nested rule is read in, so a rule gives one warning. */
interface Tally {
  readonly path: string;
  readonly selector: string;
  misses: number;
  reads: number;
  cut: number;
}

class Extraction {
  private chars = 0;
  private values = 0;
  readonly tallies = new Map<string, Tally>();

  constructor(private readonly baseUrl: URL) {}

  private tally(field: RuleField): Tally {
    let tally = this.tallies.get(field.path);
    if (tally === undefined) {
      tally = { path: field.path, selector: field.rule.selector, misses: 0, reads: 0, cut: 0 };
      this.tallies.set(field.path, tally);
    }
    return tally;
  }

  private count(text: string): string {
    this.chars += text.length;
    if (this.chars > ANSWER_LIMITS.answerChars) throw new TooLarge();
    return text;
  }

  /** One more value in the answer. */
  private counted<T>(value: T): T {
    this.values += 1;
    if (this.values > ANSWER_LIMITS.answerValues) throw new TooLarge();
    return value;
  }

  private select(scope: ParentNode, field: RuleField, many: boolean): Element[] {
    try {
      if (!many) {
        const first = scope.querySelector(field.rule.selector);
        return first === null ? [] : [first];
      }
      return [...scope.querySelectorAll(field.rule.selector)];
    } catch (error) {
      throw new BadSelector(field.path, error instanceof Error ? error.message : String(error));
    }
  }

  private valueOf(element: Element, value: RuleValue): unknown {
    switch (value.kind) {
      case 'text':
        return this.count((element.textContent ?? '').replace(/\s+/g, ' ').trim());
      case 'html':
        return this.count(element.outerHTML);
      case 'attribute': {
        const raw = element.getAttribute(value.attribute);
        if (raw === null) return null;
        if (!URL_ATTRIBUTES.has(value.attribute.toLowerCase())) return this.count(raw);
        const trimmed = raw.trim();
        return this.count(URL.canParse(trimmed, this.baseUrl) ? new URL(trimmed, this.baseUrl).href : raw);
      }
      case 'object':
        return this.fieldsOf(element, value.fields);
    }
  }

  /** The answer's object for `fields`, each rule matched inside `scope`. */
  fieldsOf(scope: ParentNode, fields: readonly RuleField[]): Record<string, unknown> {
    const entries = fields.map((field): [string, unknown] => {
      const tally = this.tally(field);
      tally.reads += 1;
      const { rule } = field;
      const matched = this.select(scope, field, rule.many);
      if (matched.length === 0) tally.misses += 1;
      if (!rule.many) {
        const first = matched[0];
        return [field.name, this.counted(first === undefined ? null : this.valueOf(first, rule.value))];
      }
      if (matched.length > ANSWER_LIMITS.listItems) tally.cut += 1;
      const items = matched
        .slice(0, ANSWER_LIMITS.listItems)
        .map((element) => this.counted(this.valueOf(element, rule.value)));
      return [field.name, this.counted(items)];
    });
    // Defined as own members: a field named __proto__ is a field, not the object's prototype.
    return Object.fromEntries(entries);
  }
}

/** The warnings of one extraction: a rule that matched nothing, a list that was cut. */
function warningsOf(tallies: Iterable<Tally>): string[] {
  const warnings: string[] = [];
  for (const { path, selector, misses, reads, cut } of tallies) {
    const shown = JSON.stringify(selector);
    if (misses > 0) {
      const where = reads > 1 ? ` in ${misses} of the ${reads} elements it was read in` : '';
      warnings.push(`${path}: the selector ${shown} matched nothing${where}`);
    }
    if (cut > 0)
      warnings.push(
        `${path}: the selector ${shown} matched more than ${ANSWER_LIMITS.listItems} elements; the first ${ANSWER_LIMITS.listItems} are returned`,
      );
  }
  return warnings;
}

/**
 * The answer of selector rules on one page: each field from the first element its selector
 * matches (or every element, for a list), a nested rule matched inside each element of its
 * parent; a rule that matches nothing is null (a list []) with a warning naming its path.
 * Deterministic. CPU-bound: runs in an extractor process (engines/extractors/).
 */
export function extractByRules(input: RulesInput): RulesOutput {
  const { document, warnings } = parsePage(input.html);
  const extraction = new Extraction(documentBaseUrl(document, input.pageUrl));
  try {
    const data = extraction.fieldsOf(document, input.fields);
    return { ok: true, data, warnings: [...warnings, ...warningsOf(extraction.tallies.values())] };
  } catch (error) {
    if (error instanceof BadSelector) return { ok: false, badSelector: error.path, message: error.message };
    if (error instanceof TooLarge) return { ok: false, tooLarge: true };
    throw error;
  }
}
