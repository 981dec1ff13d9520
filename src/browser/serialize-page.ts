import type { Page } from 'puppeteer-core';
import { WebcapError } from '../errors.js';

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
 */
const SNAPSHOT_SOURCE = `(css, max, attribute) => {
  const element = css === null ? null : document.querySelector(css);
  if (element !== null) element.setAttribute(attribute, '');
  const doctype = document.doctype === null ? '' : '<!DOCTYPE ' + document.doctype.name + '>';
  const root = document.documentElement;
  const html = doctype + (root === null ? '' : root.outerHTML);
  return { html: html.length > max ? html.slice(0, max) : html, length: html.length, selected: element !== null };
}`;

/**
 * The rendered DOM as HTML, cut at `maxChars` inside the page (only that much crosses to this
 * process); the first element `selector` matches (checked and waited for by the pipeline) is
 * marked with `markAttribute` so that extraction finds it.
 */
export async function serializePage(
  page: Page,
  selector: string | null,
  maxChars: number,
  markAttribute: string,
): Promise<PageSnapshot> {
  const session = await page.createCDPSession();
  try {
    const { frameTree } = await session.send('Page.getFrameTree');
    const { executionContextId } = await session.send('Page.createIsolatedWorld', {
      frameId: frameTree.frame.id,
      worldName: 'webcap-snapshot',
    });
    const args = [selector, maxChars, markAttribute].map((arg) => JSON.stringify(arg)).join(', ');
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
