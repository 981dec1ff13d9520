import { parseHTML } from 'linkedom';
import { cutAtElements, cutWarning, elementBudget } from './element-budget.js';

export interface ParsedPage {
  readonly document: Document;
  /** Elements parsed. */
  readonly elements: number;
  readonly warnings: string[];
}

const NO_ROOT = 'the page has no root element: it was extracted as empty';

// What a browser's parser puts in the head when it comes before any content.
const HEAD_TAGS: ReadonlySet<string> = new Set([
  'BASE',
  'LINK',
  'META',
  'NOSCRIPT',
  'SCRIPT',
  'STYLE',
  'TEMPLATE',
  'TITLE',
]);

/** A node a browser's parser keeps in the head: a comment, blank text or a head element. */
function belongsInHead(node: Node): boolean {
  if (node.nodeType === 8) return true;
  if (node.nodeType === 3) return (node.nodeValue ?? '').trim() === '';
  return node.nodeType === 1 && HEAD_TAGS.has((node as Element).tagName.toUpperCase());
}

const isElement = (node: Node, name: string) =>
  node.nodeType === 1 && (node as Element).tagName.toUpperCase() === name;

/**
 * Gives `document` the shape a browser's parser would: an html root holding a head, then a body.
 * linkedom builds the tree as the tags come and takes the first element as the root, so a page
 * with a script before `<html>`, or no `<head>`, would read as another root or an empty body
 * (its document.body is then a new, empty one). Elements around the root go into it; head
 * elements before any content into the head, everything else into the body, in order.
 * Bounded by the page's elements (each top-level node moves once).
 */
function shape(document: Document): void {
  let html = [...document.childNodes].find((node) => isElement(node, 'HTML')) as Element | undefined;
  if (html === undefined) {
    html = document.createElement('html');
    document.appendChild(html);
  }
  const root = html;
  for (const node of [...document.childNodes]) {
    if (node === root || node.nodeType === 10) continue;
    if (node.compareDocumentPosition(root) & 4) root.insertBefore(node, root.firstChild);
    else root.appendChild(node);
  }
  // Keep the doctype first and the root after it, with nothing but comments around.
  const doctype = [...document.childNodes].find((node) => node.nodeType === 10);
  if (doctype !== undefined && doctype.nextSibling !== root) document.insertBefore(root, doctype.nextSibling);
  const children = [...root.childNodes];
  const head =
    (children.find((node) => isElement(node, 'HEAD')) as Element | undefined) ??
    document.createElement('head');
  const body =
    (children.find((node) => isElement(node, 'BODY')) as Element | undefined) ??
    document.createElement('body');
  const before: Node[] = [];
  let content = false;
  let afterBody = false;
  for (const node of children) {
    if (node === head) continue;
    if (node === body) {
      afterBody = true;
      continue;
    }
    if (afterBody) {
      body.appendChild(node);
      continue;
    }
    if (!content && belongsInHead(node)) head.appendChild(node);
    else {
      content = true;
      before.push(node);
    }
  }
  // Content inside the head (a page that never closes it) ends the head where it starts.
  let stray: Node | null = null;
  for (let node = head.firstChild; node !== null && stray === null; node = node.nextSibling) {
    if (!belongsInHead(node)) stray = node;
  }
  const fromHead: Node[] = [];
  for (let node = stray; node !== null; node = node.nextSibling) fromHead.push(node);
  before.unshift(...fromHead);
  root.insertBefore(head, root.firstChild);
  root.insertBefore(body, head.nextSibling);
  for (let i = before.length - 1; i >= 0; i--) body.insertBefore(before[i] as Node, body.firstChild);
}

/**
 * The serialized page parsed within this process's element budget, always with an html root, a
 * head and a body (shape). A page that removed its root element, or whose body could not be
 * decoded, serializes to nothing (or to a stray text or element), which is read as an empty page
 * with a warning (or as a body holding that stray text).
 */
export function parsePage(html: string): ParsedPage {
  const budget = elementBudget();
  const kept = cutAtElements(html, budget.elements);
  const warnings = kept.cut ? [cutWarning(budget.elements)] : [];
  const { document } = parseHTML(kept.html) as unknown as { document: Document };
  const rootless = document.documentElement?.tagName.toUpperCase() !== 'HTML';
  shape(document);
  if (rootless && (document.body?.textContent ?? '').trim() === '') warnings.push(NO_ROOT);
  return { document, elements: kept.elements, warnings };
}
