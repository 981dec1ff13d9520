import { type Page, TimeoutError } from 'puppeteer-core';
import { invalidParam } from '../errors.js';

/**
 * Selectors are plain CSS as the browser's own `querySelector` parses it (docs/security.md).
 * Puppeteer's extensions (`::-p-xpath(...)`, `::-p-text(...)`, `>>>`, `aria/...`) are not part of
 * the API: they can select non-elements and run other engines, so every lookup here goes through
 * `document.querySelector*` and never through puppeteer's query handlers.
 */

/** A selector a caller gave, with the parameter it came in. */
export interface NamedSelector {
  readonly param: string;
  readonly selector: string;
}

/** Throws a 400 naming the parameter of the first selector the browser cannot parse; run before navigating. */
export async function checkSelectors(page: Page, selectors: readonly NamedSelector[]): Promise<void> {
  if (selectors.length === 0) return;
  const bad = await page.evaluate(
    (list: NamedSelector[]) => {
      const probe = document.createDocumentFragment();
      for (const { param, selector } of list) {
        try {
          probe.querySelector(selector);
        } catch {
          return param;
        }
      }
      return null;
    },
    [...selectors],
  );
  if (bad !== null) throw invalidParam(bad, 'is not a valid CSS selector');
}

const POLL_MS = 100;

/** Waits until `selector` (checked by checkSelectors) matches an element; a 400 naming `param` after timeoutMs. */
export async function waitForCss(
  page: Page,
  selector: string,
  param: string,
  timeoutMs: number,
): Promise<void> {
  try {
    await page.waitForFunction(
      (css: string) => document.querySelector(css) !== null,
      { polling: POLL_MS, timeout: timeoutMs },
      selector,
    );
  } catch (error) {
    if (error instanceof TimeoutError) throw invalidParam(param, `matched no element within ${timeoutMs} ms`);
    throw error;
  }
}

/**
 * Hides (`display: none !important`) or removes every element matching the selectors (checked by
 * checkSelectors); returns how many.
 */
export async function hideSelectors(
  page: Page,
  selectors: readonly string[],
  removal: 'hide' | 'remove' = 'hide',
): Promise<number> {
  if (selectors.length === 0) return 0;
  // The items came from one comma-separated parameter; joined again they are one selector list,
  // so that a comma inside `:is(a, b)` keeps its meaning.
  return page.evaluate(
    (list: string, remove: boolean) => {
      let hidden = 0;
      for (const element of document.querySelectorAll(list)) {
        if (remove) {
          element.remove();
          hidden += 1;
        } else if (element instanceof HTMLElement || element instanceof SVGElement) {
          element.style.setProperty('display', 'none', 'important');
          hidden += 1;
        }
      }
      return hidden;
    },
    selectors.join(','),
    removal === 'remove',
  );
}

/** The document-relative CSS box of the first element matching `selector`; null when none matches. */
export async function elementBox(
  page: Page,
  selector: string,
): Promise<{ x: number; y: number; width: number; height: number } | null> {
  return page.evaluate((css: string) => {
    const element = document.querySelector(css);
    if (element === null) return null;
    const box = element.getBoundingClientRect();
    return {
      x: box.left + window.scrollX,
      y: box.top + window.scrollY,
      width: box.width,
      height: box.height,
    };
  }, selector);
}
