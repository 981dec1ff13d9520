/**
 * The URL a document's relative URLs resolve against: the first `<base href>` anywhere in the
 * document (as browsers take it, https://html.spec.whatwg.org/#the-base-element), resolved
 * against `pageUrl`, when it is a valid http(s) URL; else `pageUrl`. `pageUrl` must be absolute.
 */
export function documentBaseUrl(document: Document, pageUrl: string): URL {
  const page = new URL(pageUrl);
  const href = document.querySelector('base[href]')?.getAttribute('href');
  if (href === null || href === undefined) return page;
  const base = URL.canParse(href, page) ? new URL(href, page) : null;
  return base !== null && (base.protocol === 'http:' || base.protocol === 'https:') ? base : page;
}
