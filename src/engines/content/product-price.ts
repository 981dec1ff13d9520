import { type JsonLdNode, readJsonLd } from './json-ld.js';

/*
 * A product page's price, as the page declares it for machines (schema.org Product in JSON-LD or
 * microdata): the price a shop shows beside the product's name stands apart from the description
 * that main content finds, so a product's main content would otherwise lack it (issue 36).
 */

const MAX_CHARS = 40;

function isProduct(node: JsonLdNode): boolean {
  const type = node['@type'];
  return (Array.isArray(type) ? type : [type]).some(
    (t) => typeof t === 'string' && /^(?:schema:)?Product$/i.test(t),
  );
}

const text = (value: unknown): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value).trim().slice(0, MAX_CHARS) : '';

function offerPrice(offers: unknown): string {
  const offer = Array.isArray(offers) ? offers[0] : offers;
  if (offer === null || typeof offer !== 'object') return '';
  const o = offer as JsonLdNode;
  const amount = text(o.price) || text(o.lowPrice);
  return amount === '' ? '' : `${amount} ${text(o.priceCurrency)}`.trim();
}

/** The declared price of the page's product ("129.00 EUR"), or '' when the page declares none. */
export function productPrice(document: Document): string {
  for (const node of readJsonLd(document).nodes) {
    if (!isProduct(node)) continue;
    const price = offerPrice(node.offers);
    if (price !== '') return price;
  }
  const price = document.querySelector('[itemscope] [itemprop="price"]');
  if (price === null) return '';
  const amount = text(price.getAttribute('content') ?? price.textContent ?? '');
  const currency = document.querySelector('[itemscope] [itemprop="priceCurrency"]');
  return amount === ''
    ? ''
    : `${amount} ${text(currency?.getAttribute('content') ?? currency?.textContent ?? '')}`.trim();
}
