import { getHeapStatistics } from 'node:v8';

/**
 * How many elements of a page fit the heap of the process extracting it. Measured on a page of
 * 100,000 links: linkedom holds about 1.5 KB per element with its text nodes, the cleaned body is a
 * second copy, and the Markdown converter peaks at 4.5 KB per element; 8 KB leaves room for both.
 */
const BYTES_PER_ELEMENT = 8_192;
/**
 * What an extractor process holds before its first page, left out of the budget: measured after
 * loading the extraction modules, 15 MB (Node 20) and 17 MB (Node 22) compiled, 20 and 24 MB
 * through tsx. At CONTENT_THREAD_HEAP_MB=128 that is a seventh of the heap: counting it as room
 * for elements, a page at the budget ran the process out of heap on Node 22.
 */
const BASE_HEAP_BYTES = 32 * 1024 * 1024;
/**
 * The main-content search keeps a count per element beside the page and its copy: above this
 * share of the budget the main content is the cleaned body. (Set when Readability and defuddle
 * did the search on four to five copies; kept, which leaves our own search room to spare.)
 */
const MAIN_CONTENT_SHARE = 0.3;

export interface ElementBudget {
  /** Elements parsed at most; a page with more is cut before the first one past it. */
  readonly elements: number;
  /** Elements (after pruning) that the main-content search takes. */
  readonly mainContentElements: number;
}

/** The budget of this process, from its own heap limit (CONTENT_THREAD_HEAP_MB for an extractor). */
export function elementBudget(heapLimitBytes = getHeapStatistics().heap_size_limit): ElementBudget {
  const elements = Math.max(1_000, Math.floor((heapLimitBytes - BASE_HEAP_BYTES) / BYTES_PER_ELEMENT));
  return { elements, mainContentElements: Math.floor(elements * MAIN_CONTENT_SHARE) };
}

export interface CutHtml {
  readonly html: string;
  /** Elements in what is kept. */
  readonly elements: number;
  /** Whether the page had more than `maxElements`. */
  readonly cut: boolean;
}

/** Whether `code` is an ASCII letter: `<` followed by one opens an element. */
function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * `html` cut just before its element number `maxElements + 1`, counting start tags in one linear
 * pass (a `<` inside a comment or script may count too, which only cuts earlier). The parser
 * closes what the cut leaves open.
 */
export function cutAtElements(html: string, maxElements: number): CutHtml {
  let elements = 0;
  let at = html.indexOf('<');
  while (at !== -1) {
    if (isLetter(html.charCodeAt(at + 1))) {
      if (elements === maxElements) return { html: html.slice(0, at), elements, cut: true };
      elements++;
    }
    at = html.indexOf('<', at + 1);
  }
  return { html, elements, cut: false };
}

/** The warning a cut page carries. */
export function cutWarning(maxElements: number): string {
  return `the page has more than ${maxElements} elements; the first ${maxElements} were extracted`;
}
