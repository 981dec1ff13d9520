import type { Page } from 'puppeteer-core';

/*
 * The caller's CSS (`styles`) and hide_selectors. Both go in as constructable stylesheets
 * adopted by the document, not a <style> element: a page whose Content-Security-Policy forbids
 * inline styles (style-src without 'unsafe-inline') blocks a <style> element, but CSP does not
 * govern the CSSOM, so adopted sheets apply on every page without turning the page's own
 * policy off (Page.setBypassCSP would, for its scripts too). Adopted sheets come after the
 * document's own in the cascade, so the caller's rules win at equal specificity.
 */

/** The sheets' texts: the caller's CSS, then hide_selectors made invisible with their layout kept. */
function sheetTexts(styles: string | null, hideSelectors: readonly string[]): string[] {
  // The items came from one comma-separated parameter and were checked as one selector list. A
  // sheet of its own, so that an unclosed block in the caller's CSS cannot swallow the rule.
  const hide =
    hideSelectors.length === 0 ? [] : [`${hideSelectors.join(',')} { visibility: hidden !important; }`];
  return [...(styles === null ? [] : [styles]), ...hide];
}

/** Adopts the caller's styles and hide_selectors into the page's document; nothing when neither is given. */
export async function applyPageStyles(
  page: Page,
  styles: string | null,
  hideSelectors: readonly string[],
): Promise<void> {
  if (styles === null && hideSelectors.length === 0) return;
  await page.evaluate(
    (texts: string[]) => {
      const sheets = texts.map((text) => {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(text);
        return sheet;
      });
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, ...sheets];
    },
    sheetTexts(styles, hideSelectors),
  );
}
