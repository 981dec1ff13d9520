/**
 * Class and id names that mark page furniture inside a page's body (comment threads, share bars,
 * related links, bylines, tag lists, newsletter boxes), the conventions of CMS themes and news
 * sites as extraction tools have long read them; and names that mark an article's body or a
 * recipe's ingredients. Read by main-content.ts, which removes the former (unless they hold the
 * article) and keeps the latter.
 */

/** A class or id name holding one of these anywhere is furniture ("entry-meta", "sharedaddy", "jp-relatedposts"). */
const FURNITURE_PARTS = [
  'footer',
  'sidebar',
  'related',
  'share',
  'sharing',
  'social',
  'sociable',
  'syndication',
  'newsletter',
  'subscribe',
  'breadcrumb',
  'byline',
  'author',
  'widget',
  'advert',
  'sponsor',
  'outbrain',
  'taboola',
  'pagination',
  'navigation',
  'navbar',
  'subnav',
  'menu',
  'banner',
  'popular',
  'recommend',
  'tagcloud',
  'tag-list',
  'taglist',
  'rating',
  'toolbar',
  'postmeta',
  'post-meta',
  'entry-meta',
  'article-meta',
  'meta-data',
  'metadata',
  'timestamp',
  'dateline',
  'pubdate',
  'post-date',
  'entry-date',
  'skip-link',
  'screen-reader',
  'sr-only',
  'visually-hidden',
  'visuallyhidden',
  'print-only',
  'noprint',
  'lightbox',
  'modal',
  'popup',
  'flyout',
  'paywall',
  'login',
  'signup',
  'signin',
  'prevnext',
  'prev-next',
  'post-nav',
  'caption',
  'credit',
  'copyright',
] as const;

/**
 * A class or id name holding one of these marks a comment thread: furniture however long it is
 * (threads often outweigh the article they follow).
 */
const THREAD_PARTS = ['comment', 'disqus', 'respond'] as const;

/** A class or id name holding one of these marks a consent notice: never the article, however long. */
const CONSENT_PARTS = ['cookie', 'consent', 'gdpr'] as const;

/** A class or id name with one of these as a whole part between - and _ ("nav-main", "ad_slot", "tags"). */
const FURNITURE_WORDS = [
  'nav',
  'ad',
  'ads',
  'tags',
  'meta',
  'date',
  'time',
  'print',
  'reply',
  'replies',
  'share',
  'hide',
  'promo',
  'pager',
  'crumbs',
  'masthead',
] as const;

/** Names of an article's body container ("entry-content", "article__body", itemprop articleBody). */
const CONTENT_PARTS = [
  'articlebody',
  'article-body',
  'article_body',
  'article__body',
  'article-content',
  'article_content',
  'article__content',
  'article-text',
  'articletext',
  'entry-content',
  'entry_content',
  'entrycontent',
  'post-content',
  'post_content',
  'postcontent',
  'post-body',
  'post_body',
  'postbody',
  'post-text',
  'post-entry',
  'story-body',
  'storybody',
  'story-content',
  'body-text',
  'bodytext',
  'main-content',
  'maincontent',
  'content-body',
  'page-content',
  'text-content',
  'field-body',
  'fulltext',
  'blog-content',
  'single-content',
] as const;

/**
 * Whole names that hide an element. Only whole: "field--label-hidden" hides a field's label, not
 * the field, and "hidden-xs" hides it on phones only.
 */
const HIDING: ReadonlySet<string> = new Set(['hidden', 'is-hidden', 'd-none']);
const WORDS: ReadonlySet<string> = new Set(FURNITURE_WORDS);
// Class and id values are read up to this many characters: a page's own, unbounded, are not scanned whole.
const MAX_NAME_CHARS = 300;

// A page builder's prefix: Elementor calls every block of a page a widget ("elementor-widget-wrap",
// "elementor-widget-text-editor"), so only what follows it names the block ("share-buttons").
const BUILDER_PREFIX = /^elementor-(?:widget-?)?/;

// A BEM modifier ("TestReport__Section--Ads", "card--date"): what follows "--" says how a block
// looks or what it carries, not what it is, so the short words of FURNITURE_WORDS are not read there.
const BEM_MODIFIER = /(?<=[a-z0-9])--.*$/;

const HEADING = /^H[1-6]$/;

/**
 * Whether `id` is the anchor a documentation generator made from the heading `el` opens with
 * ("sharing-with-a-single-developer", "setting-up-1"): it names the section's subject, not what
 * the element is. Three parts at least: a box named "related-posts" over a "Related posts"
 * heading is named for what it is.
 */
function headingAnchor(el: Element, id: string): boolean {
  const heading = el.firstElementChild;
  if (id === '' || heading === null || !HEADING.test(heading.tagName.toUpperCase())) return false;
  const words = new Set(
    (heading.textContent ?? '')
      .slice(0, MAX_NAME_CHARS)
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u),
  );
  const parts = id.slice(0, MAX_NAME_CHARS).toLowerCase().split(/[-_]/);
  return parts.length >= 3 && parts.every((part) => words.has(part) || /^\d+$/.test(part));
}

function names(el: Element): string[] {
  const id = el.getAttribute('id') ?? '';
  const value = `${el.getAttribute('class') ?? ''} ${headingAnchor(el, id) ? '' : id}`;
  return value
    .slice(0, MAX_NAME_CHARS)
    .toLowerCase()
    .split(' ')
    .map((name) => name.replace(BUILDER_PREFIX, ''));
}

/**
 * What `el`'s class or id says it is: a comment thread, a consent notice, a teaser (of another page,
 * or the article's own standfirst: the caller tells them apart), other furniture, or none of these.
 */
export function furnitureName(el: Element): 'thread' | 'consent' | 'furniture' | 'teaser' | null {
  let found: 'furniture' | 'teaser' | null = null;
  for (const name of names(el)) {
    if (name === '') continue;
    // A name that also names an article's body ("post-content-footer") is not furniture.
    if (CONTENT_PARTS.some((part) => name.includes(part))) continue;
    if (THREAD_PARTS.some((part) => name.includes(part))) return 'thread';
    if (CONSENT_PARTS.some((part) => name.includes(part))) return 'consent';
    if (HIDING.has(name) || FURNITURE_PARTS.some((part) => name.includes(part))) found = 'furniture';
    else if (name.includes('teaser')) found ??= 'teaser';
    else if (
      name
        .replace(BEM_MODIFIER, '')
        .split(/[-_]/)
        .some((word) => WORDS.has(word))
    )
      found = 'furniture';
  }
  return found;
}

/** Whether `el` is marked as an article's body by its class, id or itemprop. */
export function hasContentName(el: Element): boolean {
  if ((el.getAttribute('itemprop') ?? '').toLowerCase() === 'articlebody') return true;
  return names(el).some((name) => name !== '' && CONTENT_PARTS.some((part) => name.includes(part)));
}

/** Whether `el` is a recipe's ingredient list by its class, id or itemprop (schema.org recipeIngredient). */
export function isIngredientList(el: Element): boolean {
  const itemprop = (el.getAttribute('itemprop') ?? '').slice(0, MAX_NAME_CHARS).toLowerCase();
  return itemprop.includes('ingredient') || names(el).some((name) => name.includes('ingredient'));
}
