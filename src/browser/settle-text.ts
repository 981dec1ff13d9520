import type { Page } from 'puppeteer-core';
import { isDocumentGone } from './document-gone.js';

/**
 * How long the page's text must stay the same to count as settled: a text that has not changed
 * since load is given a short look (most pages are whole at load, and each of them pays it), one
 * that changed meanwhile, a longer one (a page filling itself in does so in steps). And how often
 * it is read.
 */
export const TEXT_QUIET_MS = { unchanged: 200, changed: 500 } as const;
const TEXT_POLL_MS = 100;

/**
 * Waits, at most `maxMs`, until the page's visible text has stayed the same for TEXT_QUIET_MS and
 * the page no longer looks as if it is filling itself in: a text that is empty or is a short
 * "Loading…" / "Please wait" placeholder, or a visible `aria-busy="true"` or progress bar, keeps
 * it waiting, since such a page is still fetching what it will show (a quiet period alone would
 * end before a fill that comes a second after load). A page without scripts does not wait at all. Runs in the page as one evaluation, so the
 * polls cost no round trips and the bound runs on the page's own clock, as its timers do; a page
 * whose thread is busy is left to the render limit. Never throws for a page that navigates away
 * meanwhile: the text is then read as it is. An exception inside the page's own code cannot reach
 * it: the evaluation's own failure is returned in the result, not thrown, and ends the wait.
 */
export async function settleText(page: Page, maxMs: number): Promise<void> {
  if (maxMs <= 0) return;
  const options = JSON.stringify({ maxMs, ...TEXT_QUIET_MS, pollMs: TEXT_POLL_MS });
  // A world of its own, as serialize-page.ts reads the page in: a page that redefines
  // querySelector, innerText or setTimeout on its prototypes changes nothing here.
  const session = await page.createCDPSession();
  try {
    const { frameTree } = await session.send('Page.getFrameTree');
    const { executionContextId } = await session.send('Page.createIsolatedWorld', {
      frameId: frameTree.frame.id,
      worldName: 'webcap-settle-text',
    });
    await session.send('Runtime.evaluate', {
      expression: `(${waitForQuietText.toString()})(${options})`,
      contextId: executionContextId,
      awaitPromise: true,
    });
  } catch (error) {
    if (!isDocumentGone(error)) throw error;
  } finally {
    await session.detach().catch(() => undefined);
  }
}

/**
 * Runs in the page (sent as source text, so no inner named functions). The text's signature is
 * its length and a 32-bit FNV-1a hash of it: cheap enough to read every poll on a large page.
 */
function waitForQuietText(options: {
  maxMs: number;
  unchanged: number;
  changed: number;
  pollMs: number;
}): Promise<void> {
  // Only a script can change a page's text after load: a page without one is settled as it is.
  const scripted =
    document.querySelector('[onload]') !== null ||
    [...document.scripts].some(
      (script) => script.type === '' || /javascript|ecmascript|module/i.test(script.type),
    );
  if (!scripted) return Promise.resolve();
  const started = performance.now();
  return new Promise((resolve) => {
    let last = '';
    let lastChange = started;
    let changes = 0;
    const tick = () => {
      const now = performance.now();
      const text = document.body === null ? '' : document.body.innerText;
      let hash = 0x811c9dc5;
      for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
      const signature = `${text.length}:${hash >>> 0}`;
      if (signature !== last) {
        changes += 1;
        last = signature;
        lastChange = now;
      }
      const trimmed = text.trim();
      const placeholder =
        trimmed === '' ||
        (trimmed.length < 300 && /\b(loading|please wait|one moment|just a moment)\b/i.test(trimmed));
      let busy = false;
      for (const element of document.querySelectorAll('[aria-busy="true"], [role="progressbar"], progress')) {
        if (element.getClientRects().length > 0) busy = true;
      }
      // The first reading is the text at load, not a change.
      const quietMs = changes > 1 ? options.changed : options.unchanged;
      const quiet = now - lastChange >= quietMs && !placeholder && !busy;
      if (quiet || now - started >= options.maxMs) {
        resolve();
        return;
      }
      setTimeout(tick, options.pollMs);
    };
    tick();
  });
}
