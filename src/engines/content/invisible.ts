import { NO_TEXT } from './html-blocks.js';
import { wordTokens } from './word-tokens.js';

/**
 * Marks, in a rendered page's serialization, each element the browser did not display
 * (browser/serialize-page.ts says which): what no reader of the page saw is not its content.
 */
export const INVISIBLE_ATTRIBUTE = 'data-webcap-invisible';

// What a page must still show once its invisible elements are gone for the marks to be believed: a
// page that had not yet shown itself when it was serialized (its body hidden until a script runs)
// is read as its markup says rather than as empty.
const MIN_VISIBLE_WORDS = 25;

/** `html` without the marks INVISIBLE_ATTRIBUTE left in it: the page as the browser serialized it. */
export function withoutInvisibleMarks(html: string): string {
  return html.replaceAll(` ${INVISIBLE_ATTRIBUTE}=""`, '');
}

/** Whether `root` holds at least MIN_VISIBLE_WORDS words outside the marked elements; iterative. */
function showsEnough(root: Element): boolean {
  let words = 0;
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.nodeType === 3) {
      words += wordTokens(node.nodeValue ?? '').length;
      if (words >= MIN_VISIBLE_WORDS) return true;
      continue;
    }
    if (node.nodeType !== 1) continue;
    const el = node as Element;
    if (NO_TEXT.has(el.tagName.toUpperCase()) || el.hasAttribute(INVISIBLE_ATTRIBUTE)) continue;
    for (let child = el.lastChild; child; child = child.previousSibling) stack.push(child);
  }
  return false;
}

/**
 * Removes from `root` the elements marked invisible, except one that holds `keep` (the element a
 * caller's selector chose), and drops every mark; when what is left would show fewer than
 * MIN_VISIBLE_WORDS words, nothing is removed (see there).
 */
export function removeInvisible(root: Element, keep: Element | null = null): void {
  const marked = [...root.querySelectorAll(`[${INVISIBLE_ATTRIBUTE}]`)];
  if (marked.length === 0) return;
  const remove = showsEnough(root);
  for (const el of marked) {
    el.removeAttribute(INVISIBLE_ATTRIBUTE);
    if (remove && (keep === null || !el.contains(keep))) el.remove();
  }
}
