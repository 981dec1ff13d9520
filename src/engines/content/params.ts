/** The content engine's typed input and its result: what the HTTP edge produces after validation, and the `data` it answers. */
import type { PageParams } from '../../browser/page-params.js';
import type { PageLinks } from './links.js';
import type { PageMetadata } from './metadata.js';
import type { SiteSitemap } from './sitemap.js';

export interface ContentParams
  extends Omit<PageParams, 'device' | 'scaleFactor' | 'scrollDurationMs' | 'removal'> {
  readonly includeHtml: boolean;
  readonly includeMarkdown: boolean;
  /** Clean html and markdown down to the page's main content. */
  readonly useDefuddle: boolean;
  readonly includeSitemap: boolean;
}

/** The spec's Content result, with the documented extras (docs/content.md). */
export interface ContentResult {
  /** The page's URL after redirects and script navigations. */
  readonly url: string;
  /** The main document's HTTP status; 0 when the navigation had no response of its own. */
  readonly statusCode: number;
  readonly metadata: PageMetadata;
  readonly links: PageLinks;
  readonly html?: string;
  readonly markdown?: string;
  readonly sitemap?: Pick<SiteSitemap, 'source' | 'totalLinks' | 'links'>;
  /** What was cut, skipped or fell back, in words; empty when nothing was. */
  readonly warnings: string[];
}
