import { type LoadedPage, type PageDeps, type PageOutcome, withLoadedPage } from '../../browser/load-page.js';
import type { StoppedRedirect } from '../../browser/page-guards.js';
import { SYNTHETIC_ORIGIN } from '../../browser/page-params.js';
import { type PageSnapshot, serializePage } from '../../browser/serialize-page.js';
import type { GuardedFetcher } from '../../net/guarded-fetch.js';
import type { UpstreamProxy } from '../../net/upstream-proxy.js';
import { type StepShot, stepShotsOf } from '../action-shots.js';
import { USER_AGENT } from '../crawler/crawler.js';
import { extractData } from '../extract/extract-data.js';
import type { SchemaModel } from '../extract/schema/model-extract.js';
import type { ExtractorPool } from '../extractors/pool.js';
import { SELECTED_ATTRIBUTE } from './extract.js';
import { INVISIBLE_ATTRIBUTE } from './invisible.js';
import type { ContentPageParams, ContentParams, ContentResult } from './params.js';
import { discoverSitemap, type SitemapBounds, type SiteSitemap } from './sitemap.js';

export interface ContentDeps {
  readonly page: PageDeps;
  readonly extractor: Pick<ExtractorPool, 'run'>;
  /** Server-side fetches beside the render: the sitemap and the /favicon.ico probe. */
  readonly fetcher: GuardedFetcher;
  readonly sitemap: SitemapBounds;
  /** The serialized page taken from the browser is cut at this many characters. */
  readonly maxHtmlChars: number;
  /** Links returned across internal, external and social. */
  readonly maxLinks: number;
  /** The operator's model that fills JSON Schemas (ANALYZER=openai); null: the built-in extractor. */
  readonly schemaModel: SchemaModel | null;
}

/**
 * What a page that was not followed through its redirect (`stopAtRedirect`) answers: the redirect's
 * status, its target as the URL and as the one link, and nothing read from a page.
 */
function redirectResult(redirect: StoppedRedirect): ContentResult {
  const none = {
    title: '',
    description: '',
    favicon: '',
    ogImage: '',
    language: '',
    canonicalUrl: '',
    siteName: '',
    author: '',
    publishedTime: '',
  };
  return {
    url: redirect.location,
    statusCode: redirect.status,
    metadata: none,
    links: { internal: [redirect.location], external: [], social: [] },
    warnings: [`the page redirects to ${redirect.location}; not followed`],
  };
}

/**
 * `<origin>/favicon.ico`, asked through the caller's proxy if any, when it answers 2xx with
 * something that is not an HTML page; else ''.
 */
async function faviconIco(
  fetcher: GuardedFetcher,
  pageUrl: string,
  proxy: UpstreamProxy | null,
): Promise<string> {
  // A page that sent itself to about:blank has no origin to ask.
  if (!/^https?:/i.test(pageUrl)) return '';
  const url = new URL('/favicon.ico', pageUrl).href;
  try {
    const headers = { 'user-agent': USER_AGENT, accept: 'image/*' };
    const answer = await fetcher.fetch(url, { headers, proxy });
    const html = (answer.contentType ?? '').toLowerCase().startsWith('text/html');
    return answer.status >= 200 && answer.status < 300 && !html && answer.body.length > 0
      ? answer.finalUrl
      : '';
  } catch {
    return '';
  }
}

/** Content has no image format of its own: its screenshot steps are PNGs. */
const STEP_SHOTS = { type: 'png', quality: 100, omitBackground: false } as const;

/** A page as the content engine reads it: its serialized DOM, or the redirect it stopped at. */
export type RenderedPage =
  | { readonly redirect: StoppedRedirect }
  | (PageSnapshot & {
      readonly status: number | null;
      readonly finalUrl: string;
      readonly loadWarnings: readonly string[];
      readonly shots: LoadedPage['shots'];
    });

/**
 * Renders the page once through the page pipeline, elements removed as asked, and takes its DOM
 * as the browser serializes it (cut at maxHtmlChars): what content and extract both read.
 */
export function renderPage(
  deps: Pick<ContentDeps, 'page' | 'maxHtmlChars'>,
  params: ContentPageParams,
): Promise<RenderedPage> {
  const pageParams = {
    ...params,
    device: null,
    scaleFactor: null,
    scrollDurationMs: null,
    removal: 'remove' as const,
    // Read for its text: a page that fills itself in after load is read once it has.
    settleText: true as const,
    stepShots: STEP_SHOTS,
  };
  return withLoadedPage(
    deps.page,
    pageParams,
    async (loaded): Promise<RenderedPage> =>
      loaded.redirect !== undefined
        ? { redirect: loaded.redirect }
        : {
            ...(await serializePage(
              loaded.page,
              params.selector,
              deps.maxHtmlChars,
              SELECTED_ATTRIBUTE,
              INVISIBLE_ATTRIBUTE,
            )),
            status: loaded.status,
            finalUrl: loaded.finalUrl,
            loadWarnings: loaded.warnings,
            shots: loaded.shots,
          },
  );
}

const NO_SITEMAP: SiteSitemap = {
  source: '',
  totalLinks: 0,
  links: [],
  warnings: ['no sitemap: the page was sent as html or markdown without base_url, so it has no site'],
};

/**
 * A page's content (spec, Content result): the page pipeline renders it once, with elements
 * removed as asked, and the serialized DOM is extracted in an extractor process into metadata,
 * links, HTML and Markdown. The sitemap is discovered beside the render, through the guarded
 * fetcher (and the caller's proxy, as the page and the favicon probe are); it never fails the
 * call. A page that never finished loading is extracted as it was, with a warning. The PNGs of
 * the `screenshot` steps come beside the result, for the caller to host. Throws what the pipeline
 * throws (blocked, unreachable, timeout).
 */
export async function content(
  deps: ContentDeps,
  params: ContentParams,
): Promise<PageOutcome<ContentResult> & { readonly stepShots: readonly StepShot[] }> {
  const stopSitemap = new AbortController();
  // A page sent without base_url has no site to ask for a sitemap or a favicon.
  const siteless = params.url === SYNTHETIC_ORIGIN;
  const sitemap: Promise<SiteSitemap> | null = !params.includeSitemap
    ? null
    : siteless
      ? Promise.resolve(NO_SITEMAP)
      : discoverSitemap(deps.fetcher, params.url, deps.sitemap, {
          signal: stopSitemap.signal,
          proxy: params.proxy,
        });
  // Settled below, or abandoned when the render fails; it must not surface as unhandled.
  sitemap?.catch(() => undefined);
  try {
    const rendered = await renderPage(deps, params);
    if ('redirect' in rendered) {
      return { result: redirectResult(rendered.redirect), complete: false, stepShots: [] };
    }
    const warnings: string[] = [...rendered.loadWarnings];
    if (rendered.length > deps.maxHtmlChars) {
      warnings.push(
        `the page's HTML has ${rendered.length} characters; the first ${deps.maxHtmlChars} were extracted`,
      );
    }
    // Both read the same serialized DOM, each in its own extractor process.
    const json =
      params.json === null
        ? null
        : extractData(deps, { html: rendered.html, pageUrl: rendered.finalUrl }, params.json);
    json?.catch(() => undefined);
    const extracted = await deps.extractor.run('content', {
      html: rendered.html,
      pageUrl: rendered.finalUrl,
      scoped: rendered.selected,
      includeHtml: params.includeHtml,
      includeMarkdown: params.includeMarkdown,
      useDefuddle: params.useDefuddle,
      maxLinks: deps.maxLinks,
    });
    const structured = json === null ? null : await json;
    warnings.push(...extracted.warnings);
    const { metadata } = extracted;
    const favicon =
      metadata.favicon !== '' || siteless
        ? metadata.favicon
        : await faviconIco(deps.fetcher, rendered.finalUrl, params.proxy);
    const site = sitemap === null ? null : await sitemap;
    if (site !== null) warnings.push(...site.warnings);
    const result: ContentResult = {
      url: rendered.finalUrl,
      statusCode: rendered.status ?? 0,
      metadata: { ...metadata, favicon },
      links: extracted.links,
      ...(extracted.html === undefined ? {} : { html: extracted.html }),
      ...(extracted.markdown === undefined ? {} : { markdown: extracted.markdown }),
      ...(structured === null
        ? {}
        : {
            json: {
              data: structured.data,
              ...(structured.warnings.length === 0 ? {} : { warnings: structured.warnings }),
            },
          }),
      ...(site === null
        ? {}
        : { sitemap: { source: site.source, totalLinks: site.totalLinks, links: site.links } }),
      warnings,
    };
    return {
      result,
      complete: rendered.loadWarnings.length === 0,
      stepShots: stepShotsOf(rendered.shots, STEP_SHOTS.type),
    };
  } finally {
    stopSitemap.abort();
  }
}
