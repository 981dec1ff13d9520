import { documentBaseUrl } from './base-url.js';
import { type JsonLdNode, readJsonLd } from './json-ld.js';

/**
 * A page's metadata (spec, Content result) from its `<head>`: `<title>`, `<meta>` and `<link>`
 * elements that are children of `<head>`. The input is the browser's serialized DOM, so the HTML
 * parser has already put head content where it belongs; a `<meta>`, `<link>` or `<title>` left in
 * the body (or inside an `<svg>`) is not the page's and is ignored. The body is read only by the
 * fallbacks that say so: the first `<h1>`, and JSON-LD scripts, which may be anywhere.
 *
 * Every field is a string, '' when nothing is found. Text is trimmed, runs of whitespace become
 * one space, and it is cut at TEXT_MAX_CHARS. URLs are resolved against the document's base URL
 * (`<base href>`, else the page URL), kept only when http(s) and at most URL_MAX_CHARS long.
 * `<meta>` is keyed by `property`, `name` and `itemprop` alike, case-insensitively; the first
 * non-empty value of a key counts (for URLs, the first that resolves). Sources, first found wins:
 *
 * - title: `<title>`, og:title, twitter:title, JSON-LD headline then name, the first `<h1>`.
 *   `<title>` first, as other content APIs do: it is the page's own name for itself.
 * - description: description, og:description, twitter:description, JSON-LD description.
 * - ogImage: og:image, og:image:url, og:image:secure_url, twitter:image, twitter:image:src,
 *   JSON-LD image (a URL, an ImageObject's url or contentUrl, the first of a list), then thumbnailUrl.
 * - favicon: `<link rel>` with the `icon` token (`shortcut icon` included): the largest declared
 *   `sizes`; an icon without `sizes` counts as smallest; SVG icons (`type="image/svg+xml"`, a
 *   `.svg` path or `sizes="any"`) come after every raster icon, since many consumers of a favicon
 *   URL cannot draw SVG. Then apple-touch-icon (and -precomposed), largest first; then mask-icon.
 *   Ties go to the first in the document. '' when none: probing /favicon.ico is the caller's.
 * - language: `<html lang>`, `<meta http-equiv="content-language">` (its first entry),
 *   og:locale; `_` read as `-` (en_US is en-US), canonicalized by Intl (en-gb is en-GB);
 *   a value that is not a language tag is skipped.
 * - canonicalUrl: `<link rel="canonical">`, og:url.
 * - siteName: og:site_name, JSON-LD publisher name, JSON-LD WebSite name, JSON-LD
 *   Organization name, application-name, apple-mobile-web-app-title.
 * - author: author, article:author, JSON-LD author (a name, a Person's or Organization's name,
 *   a list of those joined with ", "); a value that is a URL (article:author often is) is skipped.
 * - publishedTime: article:published_time, datePublished, pubdate, publishdate, date,
 *   dc.date.issued, dcterms.issued, JSON-LD datePublished. As the page gives it (trimmed), not
 *   normalized: Date's parsing of non-ISO text is implementation-defined, and a date-only
 *   value would gain a time and a time zone it never had.
 *
 * JSON-LD: the nodes json-ld.ts reads (the top-level objects of each script within its bounds,
 * the items of a top-level array, and the items of their `@graph`, at most JSON_LD_MAX_NODES),
 * walked no deeper. Values come from the first node of the best kind that has them: Article and its
 * kinds (NewsArticle, BlogPosting, ...), then Product, Recipe, Event and similar, then WebPage
 * and its kinds. A reference `{"@id": ...}` is looked up among the nodes, one level.
 */

export interface PageMetadata {
  readonly title: string;
  readonly description: string;
  readonly favicon: string;
  readonly ogImage: string;
  readonly language: string;
  readonly canonicalUrl: string;
  readonly siteName: string;
  readonly author: string;
  readonly publishedTime: string;
}

const TEXT_MAX_CHARS = 2_000;
const URL_MAX_CHARS = 8_192;
// A list value (authors, images) is read this far.
const LIST_MAX_ITEMS = 20;

const ARTICLE_TYPES: ReadonlySet<string> = new Set([
  'Article',
  'NewsArticle',
  'BlogPosting',
  'AnalysisNewsArticle',
  'BackgroundNewsArticle',
  'OpinionNewsArticle',
  'ReportageNewsArticle',
  'ReviewNewsArticle',
  'LiveBlogPosting',
  'ScholarlyArticle',
  'TechArticle',
  'Report',
  'SocialMediaPosting',
  'DiscussionForumPosting',
]);
const THING_TYPES: ReadonlySet<string> = new Set([
  'Product',
  'Recipe',
  'Event',
  'Course',
  'Book',
  'Movie',
  'VideoObject',
  'Review',
  'HowTo',
  'SoftwareApplication',
]);
const PAGE_TYPES: ReadonlySet<string> = new Set([
  'WebPage',
  'AboutPage',
  'CollectionPage',
  'ContactPage',
  'FAQPage',
  'ItemPage',
  'MedicalWebPage',
  'ProfilePage',
  'QAPage',
  'SearchResultsPage',
  'CheckoutPage',
  'RealEstateListing',
]);
const ORGANIZATION_TYPES: ReadonlySet<string> = new Set([
  'Organization',
  'Corporation',
  'NewsMediaOrganization',
  'LocalBusiness',
  'OnlineStore',
  'EducationalOrganization',
  'NGO',
]);

const URL_LIKE = /^https?:\/\//i;
const WHITESPACE = /\s+/g;

interface HeadLink {
  readonly rel: readonly string[];
  readonly href: string;
  readonly sizes: string;
  readonly type: string;
}

interface Head {
  readonly title: string;
  /** Non-empty meta contents by lower-cased key, in document order. */
  readonly meta: ReadonlyMap<string, readonly string[]>;
  readonly links: readonly HeadLink[];
}

interface LdKinds {
  /** Content nodes, best kind first (articles, things, pages), document order within a kind. */
  readonly main: readonly JsonLdNode[];
  readonly websites: readonly JsonLdNode[];
  readonly organizations: readonly JsonLdNode[];
  readonly byId: ReadonlyMap<string, JsonLdNode>;
}

/** Reads the page's metadata from its <head> (and the documented fallbacks in the body); every field is a string, '' when absent, URLs absolute http(s). */
export function extractMetadata(document: Document, pageUrl: string): PageMetadata {
  const base = documentBaseUrl(document, pageUrl);
  const head = readHead(document);
  let sortedLd: LdKinds | undefined;
  const ld = (): LdKinds => {
    sortedLd ??= ldKinds(document);
    return sortedLd;
  };
  const metaText = (...keys: string[]): string => {
    for (const key of keys) {
      for (const value of head.meta.get(key) ?? []) {
        const found = text(value);
        if (found !== '') return found;
      }
    }
    return '';
  };
  const metaUrl = (...keys: string[]): string => {
    for (const key of keys) {
      for (const value of head.meta.get(key) ?? []) {
        const found = absoluteUrl(value, base);
        if (found !== '') return found;
      }
    }
    return '';
  };
  const notUrl = (value: string): string => (URL_LIKE.test(value) ? '' : value);
  const linkHref = (token: string): string => {
    for (const link of head.links) {
      if (!link.rel.includes(token)) continue;
      const found = absoluteUrl(link.href, base);
      if (found !== '') return found;
    }
    return '';
  };

  return {
    title: first(
      () => text(head.title),
      () => metaText('og:title', 'twitter:title'),
      () => fromNodes(ld().main, (node) => text(str(node.headline)) || text(str(node.name))),
      () => text(document.body?.querySelector('h1')?.textContent ?? ''),
    ),
    description: first(
      () => metaText('description', 'og:description', 'twitter:description'),
      () => fromNodes(ld().main, (node) => text(str(node.description))),
    ),
    favicon: favicon(head.links, base),
    ogImage: first(
      () => metaUrl('og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src'),
      () =>
        fromNodes(
          ld().main,
          (node) => imageUrl(node.image, ld().byId, base) || imageUrl(node.thumbnailUrl, ld().byId, base),
        ),
    ),
    language: first(
      () => language(document.documentElement?.getAttribute('lang') ?? ''),
      () => language((head.meta.get('http-equiv:content-language')?.[0] ?? '').split(',')[0] ?? ''),
      () => language(head.meta.get('og:locale')?.[0] ?? ''),
    ),
    canonicalUrl: first(
      () => linkHref('canonical'),
      () => metaUrl('og:url'),
    ),
    siteName: first(
      () => metaText('og:site_name'),
      () => fromNodes(ld().main, (node) => nameOf(node.publisher, ld().byId)),
      () => fromNodes(ld().websites, (node) => text(str(node.name))),
      () => fromNodes(ld().organizations, (node) => text(str(node.name))),
      () => metaText('application-name', 'apple-mobile-web-app-title'),
    ),
    author: first(
      () => notUrl(metaText('author')),
      () => notUrl(metaText('article:author')),
      () => fromNodes(ld().main, (node) => names(node.author, ld().byId)),
    ),
    publishedTime: first(
      () =>
        metaText(
          'article:published_time',
          'datepublished',
          'pubdate',
          'publishdate',
          'date',
          'dc.date.issued',
          'dcterms.issued',
        ),
      () => fromNodes(ld().main, (node) => text(str(node.datePublished))),
    ),
  };
}

/** The first non-empty result, computing each source only when the ones before it gave nothing. */
function first(...sources: (() => string)[]): string {
  for (const source of sources) {
    const value = source();
    if (value !== '') return value;
  }
  return '';
}

function fromNodes(nodes: readonly JsonLdNode[], read: (node: JsonLdNode) => string): string {
  for (const node of nodes) {
    const value = read(node);
    if (value !== '') return value;
  }
  return '';
}

/** The `<head>`'s own title, meta and link children, in one pass over them. */
function readHead(document: Document): Head {
  let title: string | null = null;
  const meta = new Map<string, string[]>();
  const links: HeadLink[] = [];
  const add = (key: string, value: string) => {
    const list = meta.get(key);
    if (list === undefined) meta.set(key, [value]);
    else list.push(value);
  };
  for (const element of Array.from(document.head?.children ?? [])) {
    const tag = element.tagName.toLowerCase();
    if (tag === 'title') {
      title ??= element.textContent ?? '';
    } else if (tag === 'meta') {
      const content = element.getAttribute('content')?.trim() ?? '';
      if (content === '') continue;
      const keys = new Set<string>();
      for (const attribute of ['property', 'name', 'itemprop']) {
        const key = element.getAttribute(attribute)?.trim().toLowerCase();
        if (key) keys.add(key);
      }
      const equiv = element.getAttribute('http-equiv')?.trim().toLowerCase();
      if (equiv) keys.add(`http-equiv:${equiv}`);
      for (const key of keys) add(key, content);
    } else if (tag === 'link') {
      const href = element.getAttribute('href');
      if (href === null) continue;
      links.push({
        rel: (element.getAttribute('rel') ?? '').toLowerCase().split(WHITESPACE),
        href,
        sizes: element.getAttribute('sizes') ?? '',
        type: (element.getAttribute('type') ?? '').trim().toLowerCase(),
      });
    }
  }
  return { title: title ?? '', meta, links };
}

/** Trimmed, whitespace collapsed, at most TEXT_MAX_CHARS (never ending in half a surrogate pair). */
function text(raw: string): string {
  // Cut before collapsing so a huge value costs little; collapsing only shortens it.
  const collapsed = raw
    .trim()
    .slice(0, TEXT_MAX_CHARS * 4)
    .replace(WHITESPACE, ' ');
  let cut = collapsed.slice(0, TEXT_MAX_CHARS);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut.trimEnd();
}

/** `raw` resolved against `base` when that gives an http(s) URL of at most URL_MAX_CHARS; else ''. */
function absoluteUrl(raw: string, base: URL): string {
  const value = raw.trim();
  if (value === '' || value.length > URL_MAX_CHARS || !URL.canParse(value, base)) return '';
  const url = new URL(value, base);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return '';
  return url.href.length > URL_MAX_CHARS ? '' : url.href;
}

/** A BCP 47 tag in canonical case, or '' when `raw` is not one. */
function language(raw: string): string {
  const tag = raw.trim().replaceAll('_', '-');
  if (tag === '' || tag.length > 100) return '';
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? '';
  } catch {
    return '';
  }
}

interface IconChoice {
  readonly url: string;
  /** Compared lexicographically: higher is better. */
  readonly rank: readonly [number, number];
}

/** The best icon link, by the order in the module comment. */
function favicon(links: readonly HeadLink[], base: URL): string {
  let best: IconChoice | null = null;
  for (const link of links) {
    const kind = link.rel.includes('icon')
      ? 3
      : link.rel.includes('apple-touch-icon') || link.rel.includes('apple-touch-icon-precomposed')
        ? 2
        : link.rel.includes('mask-icon')
          ? 1
          : 0;
    if (kind === 0) continue;
    const url = absoluteUrl(link.href, base);
    if (url === '') continue;
    const size = declaredSize(link.sizes);
    const svg =
      link.type === 'image/svg+xml' || new URL(url).pathname.toLowerCase().endsWith('.svg') || size === -1;
    // Within a kind: raster icons by size (0 when undeclared), then SVG below every raster.
    const rank: [number, number] = [kind, svg ? -1 : size];
    if (best === null || rank[0] > best.rank[0] || (rank[0] === best.rank[0] && rank[1] > best.rank[1])) {
      best = { url, rank };
    }
  }
  return best?.url ?? '';
}

/** The largest width in a `sizes` attribute ("16x16 32x32"); -1 for "any"; 0 when none is given. */
function declaredSize(sizes: string): number {
  let largest = 0;
  for (const entry of sizes.trim().toLowerCase().split(WHITESPACE).slice(0, LIST_MAX_ITEMS)) {
    if (entry === 'any') return -1;
    const [width, height] = entry.split('x');
    if (
      width === undefined ||
      height === undefined ||
      !/^\d{1,5}$/.test(width) ||
      !/^\d{1,5}$/.test(height)
    ) {
      continue;
    }
    largest = Math.max(largest, Number(width), Number(height));
  }
  return largest;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function isNode(value: unknown): value is JsonLdNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What `read` finds in `value`, else in the node its `@id` names: one level of reference. */
function orReferenced(
  value: unknown,
  byId: ReadonlyMap<string, JsonLdNode>,
  read: (value: unknown) => string,
): string {
  const found = read(value);
  if (found !== '' || !isNode(value) || typeof value['@id'] !== 'string') return found;
  const target = byId.get(value['@id']);
  return target === undefined || target === value ? '' : read(target);
}

/** A name: a string, or the `name` of a node; URLs are not names. */
function nameOf(value: unknown, byId: ReadonlyMap<string, JsonLdNode>): string {
  return orReferenced(value, byId, (target) => {
    const name = typeof target === 'string' ? text(target) : isNode(target) ? text(str(target.name)) : '';
    return URL_LIKE.test(name) ? '' : name;
  });
}

/** One name, or a list of them joined with ", " (each once). */
function names(value: unknown, byId: ReadonlyMap<string, JsonLdNode>): string {
  const list = Array.isArray(value) ? value.slice(0, LIST_MAX_ITEMS) : [value];
  const found = new Set<string>();
  for (const item of list) {
    const name = nameOf(item, byId);
    if (name !== '') found.add(name);
  }
  return text([...found].join(', '));
}

/** An image URL: a string, an ImageObject's url or contentUrl, the first usable of a list. */
function imageUrl(value: unknown, byId: ReadonlyMap<string, JsonLdNode>, base: URL): string {
  const list = Array.isArray(value) ? value.slice(0, LIST_MAX_ITEMS) : [value];
  const read = (target: unknown): string => {
    if (typeof target === 'string') return absoluteUrl(target, base);
    if (!isNode(target)) return '';
    return absoluteUrl(str(target.url), base) || absoluteUrl(str(target.contentUrl), base);
  };
  for (const item of list) {
    const url = orReferenced(item, byId, read);
    if (url !== '') return url;
  }
  return '';
}

/** The local names of a node's `@type` (schema:Article and https://schema.org/Article are Article). */
function typesOf(node: JsonLdNode): string[] {
  const raw = node['@type'];
  const list = Array.isArray(raw) ? raw.slice(0, LIST_MAX_ITEMS) : [raw];
  return list.filter((t): t is string => typeof t === 'string').map((t) => t.slice(localNameStart(t)));
}

function localNameStart(type: string): number {
  return Math.max(type.lastIndexOf('/'), type.lastIndexOf(':'), type.lastIndexOf('#')) + 1;
}

/** The page's JSON-LD nodes (json-ld.ts), sorted into the kinds the fields read from. */
function ldKinds(document: Document): LdKinds {
  const articles: JsonLdNode[] = [];
  const things: JsonLdNode[] = [];
  const pages: JsonLdNode[] = [];
  const websites: JsonLdNode[] = [];
  const organizations: JsonLdNode[] = [];
  const byId = new Map<string, JsonLdNode>();
  for (const node of readJsonLd(document).nodes) {
    const id = node['@id'];
    if (typeof id === 'string' && !byId.has(id)) byId.set(id, node);
    const types = typesOf(node);
    if (types.some((t) => ARTICLE_TYPES.has(t))) articles.push(node);
    else if (types.some((t) => THING_TYPES.has(t))) things.push(node);
    else if (types.some((t) => PAGE_TYPES.has(t))) pages.push(node);
    else if (types.includes('WebSite')) websites.push(node);
    else if (types.some((t) => ORGANIZATION_TYPES.has(t))) organizations.push(node);
  }
  return { main: [...articles, ...things, ...pages], websites, organizations, byId };
}
