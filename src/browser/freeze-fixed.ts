import type { Page } from 'puppeteer-core';

/**
 * At most this many elements are examined, the document's and its open shadow roots' together:
 * the walk reads each element's computed style, so a page of millions of elements cannot hold
 * the render.
 */
const MAX_ELEMENTS = 20_000;

/**
 * Draws the page's fixed and sticky elements once, where the first viewport shows them, for a
 * full-page shot (`freeze_fixed`, docs/capture.md). Chromium paints a fixed element where the
 * viewport was when the page is shot: on a page that has scrolled (an anchor, its own script,
 * `actions`), a header lands in the middle of the image, and a stuck sticky element with it.
 * From the top of the page, each fixed element becomes absolute at the place and size it has
 * there, and each sticky one relative at its place in the flow. Nothing is restored: the page is
 * discarded after the shot.
 */
export async function freezeFixed(page: Page): Promise<void> {
  await page.evaluate((maxElements: number) => {
    window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
    interface Found {
      readonly element: HTMLElement | SVGElement;
      readonly sticky: boolean;
      readonly rect: DOMRect;
    }
    const found: Found[] = [];
    const roots: (Document | ShadowRoot)[] = [document];
    let examined = 0;
    // Reads first, writes after: one layout for the whole walk.
    while (roots.length > 0 && examined < maxElements) {
      const root = roots.shift() as Document | ShadowRoot;
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
      for (let node = walker.nextNode(); node !== null && examined < maxElements; node = walker.nextNode()) {
        examined += 1;
        const element = node as Element;
        if (element.shadowRoot !== null) roots.push(element.shadowRoot);
        if (!(element instanceof HTMLElement || element instanceof SVGElement)) continue;
        const { position } = getComputedStyle(element);
        if (position === 'fixed' || position === 'sticky') {
          found.push({ element, sticky: position === 'sticky', rect: element.getBoundingClientRect() });
        }
      }
    }
    const set = (element: HTMLElement | SVGElement, name: string, value: string) =>
      element.style.setProperty(name, value, 'important');
    for (const { element, sticky, rect } of found) {
      if (sticky) {
        // At the top of the page a sticky element sits where the flow puts it; offsets off keep it there.
        set(element, 'position', 'relative');
        for (const side of ['top', 'right', 'bottom', 'left']) set(element, side, 'auto');
        continue;
      }
      set(element, 'position', 'absolute');
      set(element, 'box-sizing', 'border-box');
      set(element, 'width', `${rect.width}px`);
      set(element, 'height', `${rect.height}px`);
      set(element, 'top', `${rect.top}px`);
      set(element, 'left', `${rect.left}px`);
      set(element, 'right', 'auto');
      set(element, 'bottom', 'auto');
    }
    // An absolute element is placed in its nearest positioned ancestor, and its margins count:
    // one measured correction puts each where it was.
    const moved = found
      .filter(({ sticky }) => !sticky)
      .map((item) => ({ ...item, now: item.element.getBoundingClientRect() }));
    for (const { element, rect, now } of moved) {
      if (now.top !== rect.top) set(element, 'top', `${2 * rect.top - now.top}px`);
      if (now.left !== rect.left) set(element, 'left', `${2 * rect.left - now.left}px`);
    }
  }, MAX_ELEMENTS);
}
