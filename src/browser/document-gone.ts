/**
 * What the browser answers when the document an evaluation ran in navigated away or closed
 * meanwhile (a page's own script sending it elsewhere, a frame removed): not a failure of the
 * call, but a document that is no longer there to read.
 */
const GONE =
  /context was destroyed|Cannot find context|detached|Target closed|Session closed|navigated or closed|No frame/i;

export function isDocumentGone(error: unknown): boolean {
  return error instanceof Error && GONE.test(error.message);
}
