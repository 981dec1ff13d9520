import { parseHTML } from 'linkedom';
import { cutAtElements, cutWarning, elementBudget } from './element-budget.js';

export interface ParsedPage {
  readonly document: Document;
  /** Elements parsed. */
  readonly elements: number;
  readonly warnings: string[];
}

const NO_ROOT = 'the page has no root element: it was extracted as empty';

/**
 * The serialized page parsed within this process's element budget, always with an html root, a
 * head and a body: a page that removed its root element, or whose body could not be decoded,
 * serializes to nothing (or to a stray text or element), which is read as an empty page.
 */
export function parsePage(html: string): ParsedPage {
  const budget = elementBudget();
  const kept = cutAtElements(html, budget.elements);
  const warnings = kept.cut ? [cutWarning(budget.elements)] : [];
  let { document } = parseHTML(kept.html) as unknown as { document: Document };
  if (document.documentElement?.tagName.toUpperCase() !== 'HTML') {
    const root = document.documentElement;
    // Keep what a rootless page still has (an SVG document, a lone element) as the body.
    const body = root === null ? '' : root.outerHTML;
    if (root === null || (root.textContent ?? '').trim() === '') warnings.push(NO_ROOT);
    ({ document } = parseHTML(`<!DOCTYPE html><html><head></head><body>${body}</body></html>`) as unknown as {
      document: Document;
    });
  }
  return { document, elements: kept.elements, warnings };
}
