import type { NamedAction, PageActions } from '../browser/page-actions.js';
import { fileBlobKey } from '../store/file-urls.js';

/*
 * The `screenshot` format of a crawl (docs/crawl.md): a `screenshot` action step added after the
 * caller's own steps, so the content engine takes the image in the render it reads the page from
 * (a page is never fetched twice). The PNG is kept as a hosted file named after the page, and each
 * read of the crawl signs a fresh link to it.
 */

/** The caller's steps, then the one that takes the page's image (the viewport, or the whole page). */
export function withScreenshotStep(actions: PageActions | undefined, fullPage: boolean): PageActions {
  const step: NamedAction = {
    name: 'formats (screenshot)',
    action: { type: 'screenshot', fullPage },
    scriptFailure: 'fail',
  };
  return actions === undefined
    ? { steps: [step], ignoreMissingSelectors: false }
    : { ...actions, steps: [...actions.steps, step] };
}

/**
 * The hosted file id of a page's image: the page's own id, so a page run again (its worker died)
 * replaces its image rather than leaving one behind, and pruning the crawl finds it by the page.
 */
export function screenshotFileId(pageId: string): string {
  return `${pageId}.png`;
}

/** The blob key of a page's image. */
export function screenshotKey(pageId: string): string {
  return fileBlobKey(screenshotFileId(pageId));
}
