import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { productPrice } from './product-price.js';

const doc = (head: string, body = '') =>
  parseHTML(`<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`).document;
const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

describe('productPrice', () => {
  it('reads a JSON-LD Product offer, a list of offers or a graph', () => {
    expect(productPrice(doc(ld({ '@type': 'Product', offers: { price: 129, priceCurrency: 'EUR' } })))).toBe(
      '129 EUR',
    );
    expect(
      productPrice(doc(ld({ '@graph': [{ '@type': ['Product'], offers: [{ lowPrice: '9.50' }] }] }))),
    ).toBe('9.50');
  });

  it('reads microdata, and says nothing on a page that declares no product price', () => {
    const micro =
      '<div itemscope itemtype="https://schema.org/Product"><span itemprop="price" content="19.99">€19.99</span><meta itemprop="priceCurrency" content="EUR"></div>';
    expect(productPrice(doc('', micro))).toBe('19.99 EUR');
    expect(productPrice(doc(ld({ '@type': 'Article', offers: { price: 1 } })))).toBe('');
    expect(productPrice(doc(''))).toBe('');
  });
});
