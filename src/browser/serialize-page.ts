import type { Page } from 'puppeteer-core';
import { WebcapError } from '../errors.js';
import { isDocumentGone } from './document-gone.js';

/** A page serialized by serializePage. */
export interface PageSnapshot {
  readonly html: string;
  /** Characters of the whole serialized page, before any cut. */
  readonly length: number;
  readonly selected: boolean;
}

/**
 * Serializes the page in a world of its own, so that a page which redefines `outerHTML`,
 * `querySelector` or `setAttribute` on its prototypes changes nothing here. Plain JavaScript
 * source: it is evaluated by the browser as it is. Its arguments are appended as JSON.
 *
 * Before serializing, one walk over the body marks with `hiddenAttribute` each topmost element
 * the browser does not display (issue 36: a display:none copy of the article, a collapsed
 * menu): computed display none, visibility hidden or collapse (unless something inside is made
 * visible again), or a box of at most 1x1 pixel that clips what it holds. Only an element whose
 * overflow clips has its box measured, so the walk reads computed styles and lays out once; the
 * marks are taken off again after serializing, so the live page is as it was. Elements that are
 * never drawn whatever their style (scripts, templates, noscript) are not marked: metadata reads
 * JSON-LD in them and main content has its own rules for them.
 */
const SNAPSHOT_SOURCE = `(css, max, attribute, hiddenAttribute) => {
  const element = css === null ? null : document.querySelector(css);
  if (element !== null) element.setAttribute(attribute, '');
  const marked = [];
  const skip = new Set(['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'LINK', 'META', 'TITLE', 'BR', 'WBR', 'SOURCE', 'TRACK', 'PARAM', 'AREA', 'MAP', 'svg', 'math']);
  // Replaced elements clip by default and a lazy picture not loaded yet has no size: not measured.
  const replaced = new Set(['IMG', 'PICTURE', 'VIDEO', 'AUDIO', 'CANVAS', 'IFRAME', 'EMBED', 'OBJECT', 'INPUT', 'SELECT', 'TEXTAREA']);
  const clips = (value) => value !== 'visible';
  const body = document.body;
  if (body !== null) {
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_ELEMENT);
    let hiddenBy = null;
    for (let el = walker.nextNode(); el !== null; ) {
      if (hiddenBy !== null && !hiddenBy.contains(el)) hiddenBy = null;
      let leave = skip.has(el.tagName);
      if (!leave) {
        const style = getComputedStyle(el);
        if (style.display === 'none') {
          el.setAttribute(hiddenAttribute, '');
          marked.push(el);
          leave = true;
        } else if (style.visibility === 'hidden' || style.visibility === 'collapse') {
          if (hiddenBy === null) {
            hiddenBy = el;
            el.setAttribute(hiddenAttribute, '');
            marked.push(el);
          }
        } else if (hiddenBy !== null) {
          // visibility: visible inside a hidden element is drawn: its hidden ancestor is not invisible.
          hiddenBy.removeAttribute(hiddenAttribute);
          hiddenBy = null;
        } else if (!replaced.has(el.tagName) && clips(style.overflowX) && clips(style.overflowY)) {
          const box = el.getBoundingClientRect();
          if (box.width <= 1 && box.height <= 1) {
            el.setAttribute(hiddenAttribute, '');
            marked.push(el);
            leave = true;
          }
        }
      }
      if (leave) {
        el = walker.nextSibling() ?? null;
        while (el === null && walker.parentNode() !== null) {
          el = walker.nextSibling();
          if (el !== null) break;
        }
        if (el === null) break;
      } else el = walker.nextNode();
    }
  }
  const doctype = document.doctype === null ? '' : '<!DOCTYPE ' + document.doctype.name + '>';
  const root = document.documentElement;
  const html = doctype + (root === null ? '' : root.outerHTML);
  for (const el of marked) el.removeAttribute(hiddenAttribute);
  return { html: html.length > max ? html.slice(0, max) : html, length: html.length, selected: element !== null };
}`;

/**
 * The rendered DOM as HTML, cut at `maxChars` inside the page (only that much crosses to this
 * process); the first element `selector` matches (checked and waited for by the pipeline) is
 * marked with `markAttribute` so that extraction finds it, and each element the browser does not
 * display with `hiddenAttribute` (SNAPSHOT_SOURCE says which).
 */
export async function serializePage(
  page: Page,
  selector: string | null,
  maxChars: number,
  markAttribute: string,
  hiddenAttribute: string,
): Promise<PageSnapshot> {
  try {
    return await snapshot(page, selector, maxChars, markAttribute, hiddenAttribute);
  } catch (error) {
    // The page's own script sent it elsewhere while it was read: read the document it went to.
    if (!isDocumentGone(error)) throw error;
    return snapshot(page, selector, maxChars, markAttribute, hiddenAttribute);
  }
}

async function snapshot(
  page: Page,
  selector: string | null,
  maxChars: number,
  markAttribute: string,
  hiddenAttribute: string,
): Promise<PageSnapshot> {
  const session = await page.createCDPSession();
  try {
    const { frameTree } = await session.send('Page.getFrameTree');
    const { executionContextId } = await session.send('Page.createIsolatedWorld', {
      frameId: frameTree.frame.id,
      worldName: 'webcap-snapshot',
    });
    const args = [selector, maxChars, markAttribute, hiddenAttribute]
      .map((arg) => JSON.stringify(arg))
      .join(', ');
    const { result, exceptionDetails } = await session.send('Runtime.evaluate', {
      expression: `(${SNAPSHOT_SOURCE})(${args})`,
      contextId: executionContextId,
      returnByValue: true,
    });
    if (exceptionDetails !== undefined) {
      throw new WebcapError('internal', 'the page could not be serialized', {
        cause: new Error(exceptionDetails.text),
      });
    }
    return result.value as PageSnapshot;
  } finally {
    await session.detach().catch(() => undefined);
  }
}
