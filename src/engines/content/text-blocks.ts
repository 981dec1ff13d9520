/**
 * The text of a page counted by block: each text node belongs to its nearest block-level
 * ancestor (a paragraph, list item, cell, heading, or a div holding text directly), and each block
 * is classed by its own text as prose, links or a short fragment. Sums over every element's
 * subtree then say how much prose, link text and stray fragments it holds: what main-content.ts
 * chooses a container and cleans it by. One iterative pass; no recursion.
 */

import { blockTagsFor, NO_TEXT } from './html-blocks.js';

// Elements whose text is a block of its own; text inside anything else belongs to the block around it.
const BLOCK_TAGS = blockTagsFor('text-blocks');

const HEADINGS: ReadonlySet<string> = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6']);

export type BlockKind = 'prose' | 'links' | 'short' | 'heading';

/** What one element holds. Lengths are in weighted characters (charWeight). */
export interface TextCounts {
  /** Text directly in this block (not in nested blocks); 0 for inline elements. */
  own: number;
  ownLinks: number;
  ownPunctuation: number;
  /** This block's class by its own text; null when it holds no text of its own. */
  kind: BlockKind | null;
  /** Sums over the subtree, this element included. */
  prose: number;
  links: number;
  short: number;
  headings: number;
  /** The subtree holds an h1. */
  h1: boolean;
}

/**
 * How much one character weighs: letters of scripts written without spaces (Chinese, Japanese,
 * Korean syllables) carry about what three Latin letters do, so that the same sentence weighs about
 * the same in any script; whitespace weighs nothing.
 */
function charWeight(code: number): number {
  if (code <= 32 || code === 0xa0 || code === 0x3000 || code === 0x200b) return 0;
  if (
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x3400 && code <= 0x9fff) ||
    (code >= 0xac00 && code <= 0xd7af) ||
    (code >= 0xf900 && code <= 0xfaff)
  )
    return 3;
  return 1;
}

// Sentence punctuation of Latin, CJK, Arabic and Devanagari text: a block that has some is prose-like.
const PUNCTUATION: ReadonlySet<number> = new Set(
  [...'.,;:!?。，、；：！？،؛؟।'].map((c) => c.codePointAt(0) as number),
);

// A heading that is a link (another page's title in a teaser) counts as link text; one with a link
// in it stays a heading.
const HEADING_MAX_LINK_DENSITY = 0.75;
/** A block is prose when at most this share of its own text is link text... */
export const PROSE_MAX_LINK_DENSITY = 0.4;
// ...and it is this long, or this long with punctuation (weighted characters, no whitespace).
const PROSE_MIN_CHARS = 100;
const PROSE_MIN_CHARS_PUNCTUATED = 40;

function kindOf(name: string, counts: TextCounts): BlockKind {
  const density = counts.ownLinks / counts.own;
  if (HEADINGS.has(name)) return density > HEADING_MAX_LINK_DENSITY ? 'links' : 'heading';
  if (density > PROSE_MAX_LINK_DENSITY) return 'links';
  if (counts.own >= PROSE_MIN_CHARS) return 'prose';
  if (counts.own >= PROSE_MIN_CHARS_PUNCTUATED && counts.ownPunctuation > 0) return 'prose';
  return 'short';
}

const empty = (): TextCounts => ({
  own: 0,
  ownLinks: 0,
  ownPunctuation: 0,
  kind: null,
  prose: 0,
  links: 0,
  short: 0,
  headings: 0,
  h1: false,
});

/** Every element of `root`'s subtree with what it holds, in document order (root first). */
export function countText(root: Element): Map<Element, TextCounts> {
  const counts = new Map<Element, TextCounts>();
  const order: Element[] = [];
  const stack: { node: Node; block: TextCounts; inLink: boolean }[] = [];
  const rootCounts = empty();
  counts.set(root, rootCounts);
  order.push(root);
  for (let c = root.lastChild; c; c = c.previousSibling)
    stack.push({ node: c, block: rootCounts, inLink: false });
  while (stack.length > 0) {
    const { node, block, inLink } = stack.pop() as { node: Node; block: TextCounts; inLink: boolean };
    if (node.nodeType === 3) {
      const text = node.nodeValue ?? '';
      let weight = 0;
      let punctuation = 0;
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        weight += charWeight(code);
        if (PUNCTUATION.has(code)) punctuation++;
      }
      block.own += weight;
      if (inLink) block.ownLinks += weight;
      block.ownPunctuation += punctuation;
      continue;
    }
    if (node.nodeType !== 1) continue;
    const el = node as Element;
    const name = el.tagName.toUpperCase();
    if (NO_TEXT.has(name)) continue;
    const own = empty();
    own.h1 = name === 'H1';
    counts.set(el, own);
    order.push(el);
    const inner = BLOCK_TAGS.has(name) ? own : block;
    const link = inLink || name === 'A';
    for (let c = el.lastChild; c; c = c.previousSibling) stack.push({ node: c, block: inner, inLink: link });
  }
  // Children come after their parents in document order: summing from the end reaches a parent
  // once all its children are in.
  for (let i = order.length - 1; i >= 0; i--) {
    const el = order[i] as Element;
    const own = counts.get(el) as TextCounts;
    if (own.own > 0) {
      own.kind = kindOf(el.tagName.toUpperCase(), own);
      if (own.kind === 'heading') own.headings += own.own;
      else own[own.kind] += own.own;
    }
    if (el === root) continue;
    const parent = el.parentElement;
    const up = parent === null ? undefined : counts.get(parent);
    if (up === undefined) continue;
    up.prose += own.prose;
    up.links += own.links;
    up.short += own.short;
    up.headings += own.headings;
    up.h1 ||= own.h1;
  }
  return counts;
}
