import { describe, expect, it } from 'vitest';
import { WebcapError } from '../../../errors.js';
import { checkSchema } from './check-schema.js';
import { extractBySchema } from './extract-by-schema.js';

const URL_ = 'https://shop.example.net/p/widget';
const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
const page = (head: string, body: string) =>
  `<!DOCTYPE html><html lang="en"><head>${head}</head><body>${body}</body></html>`;

const PRODUCT = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    price: { type: 'number' },
    currency: { type: 'string' },
    availability: { type: 'string', enum: ['InStock', 'OutOfStock'] },
    brand: { type: 'string' },
    image: { type: 'string', format: 'uri' },
  },
  required: ['name', 'price', 'currency', 'availability', 'brand', 'image'],
} as const;

const PRODUCT_TRUTH = {
  name: 'Acme Anvil 3000',
  price: 1299,
  currency: 'EUR',
  availability: 'InStock',
  brand: 'Acme',
  image: 'https://shop.example.net/img/anvil.jpg',
};

function extract(html: string, schema: unknown, url = URL_) {
  const checked = checkSchema(schema);
  const result = extractBySchema(html, url, checked);
  return { ...result, valid: checked.validate(result.data) };
}

function refusal(schema: unknown): string {
  try {
    checkSchema(schema);
  } catch (error) {
    expect(error).toBeInstanceOf(WebcapError);
    expect((error as WebcapError).code).toBe('bad_request');
    return (error as WebcapError).detail ?? '';
  }
  throw new Error('the schema was accepted');
}

describe('extractBySchema: products', () => {
  it('fills a product from JSON-LD, ignoring the related product beside it', () => {
    const html = page(
      ld({
        '@context': 'https://schema.org',
        '@graph': [
          { '@type': 'Organization', name: 'Example Shop', logo: '/logo.png' },
          {
            '@type': 'Product',
            name: 'Acme Anvil 3000',
            image: ['/img/anvil.jpg'],
            brand: { '@type': 'Brand', name: 'Acme' },
            offers: {
              '@type': 'Offer',
              price: '1299.00',
              priceCurrency: 'EUR',
              availability: 'https://schema.org/InStock',
            },
          },
        ],
      }),
      `<h1>Acme Anvil 3000</h1>
       <div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Cheap Hammer</span>
         <span itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="9.99"></span></div>`,
    );
    const { data, warnings, valid } = extract(html, PRODUCT);
    expect(data).toEqual(PRODUCT_TRUTH);
    expect(warnings).toEqual([]);
    expect(valid).toBe(true);
  });

  it('fills the same product from microdata only', () => {
    const html = page(
      '',
      `<div itemscope itemtype="https://schema.org/Product">
         <h1 itemprop="name">Acme Anvil 3000</h1>
         <img itemprop="image" src="/img/anvil.jpg">
         <div itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Acme</span></div>
         <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
           <span itemprop="price" content="1299">€1.299,00</span><meta itemprop="priceCurrency" content="EUR">
           <link itemprop="availability" href="https://schema.org/InStock">In stock</div>
       </div>`,
    );
    const { data, valid } = extract(html, PRODUCT);
    expect(data).toEqual(PRODUCT_TRUTH);
    expect(valid).toBe(true);
  });

  it('fills the same product from OpenGraph and meta tags only', () => {
    const html = page(
      `<title>Acme Anvil 3000 | Example Shop</title>
       <meta property="og:title" content="Acme Anvil 3000">
       <meta property="og:image" content="https://shop.example.net/img/anvil.jpg">
       <meta property="product:price:amount" content="1.299,00">
       <meta property="product:price:currency" content="EUR">
       <meta property="product:availability" content="in stock">
       <meta property="product:brand" content="Acme">`,
      '<p>No heading here.</p>',
    );
    const { data, valid } = extract(html, PRODUCT);
    expect(data).toEqual(PRODUCT_TRUTH);
    expect(valid).toBe(true);
  });

  it('reads a product from RDFa-lite and a spec table', () => {
    const html = page(
      '',
      `<div vocab="https://schema.org/" typeof="Product"><h1 property="name">Acme Anvil 3000</h1>
         <div property="offers" typeof="Offer"><span property="price">1299</span><span property="priceCurrency">EUR</span></div></div>
       <table><tr><th>Brand</th><td>Acme</td></tr><tr><th>Weight</th><td>50 kg</td></tr></table>`,
    );
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        price: { type: 'number' },
        brand: { type: 'string' },
        weight: { type: 'string' },
      },
    };
    expect(extract(html, schema).data).toEqual({
      name: 'Acme Anvil 3000',
      price: 1299,
      brand: 'Acme',
      weight: '50 kg',
    });
  });

  it('turns a listing into an array of objects from its repeated entities', () => {
    const items = Array.from({ length: 5 }, (_, i) => ({
      '@type': 'Product',
      name: `Item ${i}`,
      url: `/p/${i}`,
      offers: { price: `${i + 1}.50` },
    }));
    const html = page(
      ld({
        '@type': 'ItemList',
        itemListElement: items.map((item, i) => ({ '@type': 'ListItem', position: i + 1, item })),
      }),
      '',
    );
    const schema = {
      type: 'object',
      properties: {
        products: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, price: { type: 'number' }, url: { type: 'string' } },
          },
        },
      },
    };
    const { data, valid } = extract(html, schema);
    expect(data.products).toHaveLength(5);
    expect((data.products as unknown[])[2]).toEqual({
      name: 'Item 2',
      price: 3.5,
      url: 'https://shop.example.net/p/2',
    });
    expect(valid).toBe(true);
  });
});

describe('extractBySchema: articles and contacts', () => {
  it("reads an article's headline, author and dates", () => {
    const html = page(
      ld({
        '@type': 'NewsArticle',
        headline: 'Rivers run backwards',
        author: [{ '@type': 'Person', name: 'Ada Lovelace' }],
        datePublished: '2026-03-02T08:00:00+01:00',
        dateModified: '2026-03-03',
      }),
      '<h1>Rivers run backwards</h1>',
    );
    const schema = {
      type: 'object',
      properties: {
        headline: { type: 'string' },
        author: { type: 'string' },
        published_at: { type: 'string', format: 'date-time' },
        dateModified: { type: 'string', format: 'date' },
        authors: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    };
    const { data, valid } = extract(html, schema);
    expect(data).toEqual({
      headline: 'Rivers run backwards',
      author: 'Ada Lovelace',
      published_at: '2026-03-02T08:00:00+01:00',
      dateModified: '2026-03-03',
      authors: [{ name: 'Ada Lovelace' }],
    });
    expect(valid).toBe(true);
  });

  it("reads a contact page's emails and phones", () => {
    const html = page(
      '',
      `<h1>Contact</h1><p>Write to <a href="mailto:Sales@Acme.co.uk">sales</a> or support@acme.co.uk.</p>
       <p>Call <a href="tel:+442079460958">+44 20 7946 0958</a> or +44 161 496 0000.</p>`,
    );
    const schema = {
      type: 'object',
      properties: {
        emails: { type: 'array', items: { type: 'string', format: 'email' } },
        phones: { type: 'array', items: { type: 'string' } },
        email: { type: 'string' },
      },
    };
    const { data, valid } = extract(html, schema, 'https://acme.co.uk/contact');
    expect(data).toEqual({
      emails: ['sales@acme.co.uk', 'support@acme.co.uk'],
      phones: ['+442079460958', '+441614960000'],
      email: 'sales@acme.co.uk',
    });
    expect(valid).toBe(true);
  });

  it('leaves everything null or absent with warnings on a page with nothing structured', () => {
    const html = page('', '<p>Just some words, and <b>a price</b> of nothing.</p>');
    const schema = { ...PRODUCT, required: ['name', 'price'] };
    const { data, warnings } = extract(html, schema);
    expect(data).toEqual({ name: null, price: null });
    expect(warnings).toHaveLength(6);
    expect(warnings[1]).toBe('price: not stated on the page');
    expect(checkSchema(schema).validateFound(data)).toBe(true);
  });
});

describe('extractBySchema: coercions', () => {
  const single = (value: string, field: object) => {
    const html = page('', `<dl><dt>Value:</dt><dd>${value}</dd></dl>`);
    return extract(html, { type: 'object', properties: { value: field }, required: ['value'] });
  };

  it('reads prices as numbers in either convention', () => {
    expect(single('€1.299,00', { type: 'number' }).data.value).toBe(1299);
    expect(single('$1,299.99', { type: 'number' }).data.value).toBe(1299.99);
    expect(single('12,50 €', { type: 'number' }).data.value).toBe(12.5);
    expect(single('1 299 kr', { type: 'integer' }).data.value).toBe(1299);
  });

  it('refuses what is not one number, with a warning', () => {
    const { data, warnings } = single('from 10 to 20', { type: 'number' });
    expect(data.value).toBeNull();
    expect(warnings[0]).toContain('value: ');
    expect(single('12.5', { type: 'integer' }).data.value).toBeNull();
  });

  it('writes dates in ISO 8601', () => {
    expect(single('March 5, 2024', { type: 'string', format: 'date' }).data.value).toBe('2024-03-05');
    expect(single('5th March 2024', { type: 'string', format: 'date' }).data.value).toBe('2024-03-05');
    expect(single('05.03.2024', { type: 'string', format: 'date' }).data.value).toBe('2024-03-05');
    expect(single('2024-03-05T10:00Z', { type: 'string', format: 'date-time' }).data.value).toBe(
      '2024-03-05T10:00:00Z',
    );
    // A date-time needs a time and a zone the page never gave: not invented.
    expect(single('2024-03-05', { type: 'string', format: 'date-time' }).data.value).toBeNull();
    expect(single('03/05/2024', { type: 'string', format: 'date' }).data.value).toBeNull();
  });

  it('splits a stated list into an array and matches enums loosely', () => {
    expect(single('red, green, blue', { type: 'array', items: { type: 'string' } }).data.value).toEqual([
      'red',
      'green',
      'blue',
    ]);
    expect(single('in stock', { type: 'string', enum: ['in_stock', 'sold_out'] }).data.value).toBe(
      'in_stock',
    );
    expect(single('yes', { type: 'boolean' }).data.value).toBe(true);
  });
});

describe('checkSchema', () => {
  it('refuses unsupported keywords by their path', () => {
    expect(
      refusal({ type: 'object', properties: { price: { type: 'string', pattern: '^(a+)+$' } } }),
    ).toContain('schema.properties.price.pattern is not supported');
    expect(refusal({ type: 'object', $ref: 'https://evil.example/s.json' })).toContain('schema.$ref');
    expect(refusal({ type: 'object', properties: { a: { type: 'array', items: { $id: 'x' } } } })).toContain(
      'schema.properties.a.items.$id',
    );
    expect(refusal({ type: 'object', if: {} })).toContain('schema.if');
    expect(refusal({ type: 'object', patternProperties: {} })).toContain('schema.patternProperties');
  });

  it('refuses a schema out of bounds or of the wrong shape', () => {
    expect(refusal([])).toContain('schema must be');
    expect(refusal({ type: 'array' })).toContain('schema.type must be "object"');
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20; i++) deep = { type: 'object', properties: { x: deep } };
    expect(refusal(deep)).toContain('deeper than 16');
    const many = Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`p${i}`, { type: 'string' }]));
    expect(refusal({ type: 'object', properties: many })).toContain('more than 500 properties');
    expect(refusal({ type: 'object', description: 'x'.repeat(70_000) })).toContain('larger than 65536 bytes');
    expect(refusal({ type: 'object', properties: { a: { type: 'text' } } })).toContain(
      'schema.properties.a.type',
    );
    expect(refusal({ type: 'object', properties: { a: { type: 'string', format: 'regex' } } })).toContain(
      'schema.properties.a.format',
    );
    expect(refusal({ type: 'object', required: ['b'], properties: {} })).toContain('schema.required');
    expect(
      refusal({ type: 'object', properties: { a: { type: 'string', additionalProperties: 1 } } }),
    ).toContain('additionalProperties');
  });

  it('accepts nullable types and compiles a validator of the schema as given', () => {
    const { validate } = checkSchema({
      type: 'object',
      properties: { a: { type: ['string', 'null'] } },
      required: ['a'],
      additionalProperties: false,
    });
    expect(validate({ a: null })).toBe(true);
    expect(validate({ a: 1 })).toBe(false);
    expect(validate({ a: 'x', b: 1 })).toBe(false);
  });
});

describe('extractBySchema: bounds', () => {
  it('ends on JSON-LD references that cycle', () => {
    const html = page(
      ld({
        '@graph': [
          {
            '@id': '#a',
            '@type': 'Product',
            name: 'A',
            isRelatedTo: { '@id': '#b' },
            offers: { price: '5' },
          },
          { '@id': '#b', '@type': 'Product', name: 'B', isRelatedTo: { '@id': '#a' } },
        ],
      }),
      '',
    );
    expect(extract(html, PRODUCT).data).toMatchObject({ name: 'A', price: 5 });
  });

  it('reads deeply nested properties in bounded time', () => {
    const depth = 5_000;
    const html = page(
      '',
      `<div itemscope itemtype="https://schema.org/Product">${'<div itemprop="description">x'.repeat(depth)}${'</div>'.repeat(depth)}</div>`,
    );
    const { data } = extract(html, { type: 'object', properties: { description: { type: 'string' } } });
    expect((data.description as string).length).toBeGreaterThan(0);
  });
});

describe('extractBySchema: what is not read', () => {
  it('keeps property names such as __proto__ and constructor as plain fields', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"string"}},"required":["__proto__"]}',
    );
    const html = page('', '<constructor>y</constructor><dl><dt>Constructor</dt><dd>Ada</dd></dl>');
    const { data } = extract(html, schema);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.hasOwn(data, '__proto__')).toBe(true);
    expect(data.constructor).toBe('Ada');
    expect(checkSchema(schema).validateFound(data)).toBe(true);
  });

  it('validates an answer without reading properties named like Object.prototype members', () => {
    // ajv reads `data.toString` unless told to look at own properties only: a 500 before.
    const schema = JSON.parse(
      '{"type":"object","properties":{"toString":{"type":"number"},"valueOf":{"type":"string"},"name":{"type":"string"}}}',
    );
    const html = page(ld({ '@type': 'Product', name: 'Anvil' }), '<h1>Anvil</h1>');
    const { data, valid } = extract(html, schema);
    expect(data).toEqual({ name: 'Anvil' });
    expect(valid).toBe(true);
    expect(checkSchema(schema).validate({ toString: 'one' })).toBe(false);
  });

  it("reads no name from <title>, which carries the site's name", () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, pageTitle: { type: 'string' } },
    };
    const html = page(
      '<title>Rivers run backwards - The Daily Current</title>',
      '<h1>Logo</h1><h1>Rivers</h1>',
    );
    const { data, warnings } = extract(html, schema);
    expect(data).toEqual({ pageTitle: 'Rivers run backwards - The Daily Current' });
    expect(warnings).toEqual(['name: not stated on the page']);
  });

  it('makes no list of one entity', () => {
    const html = page(
      ld({ '@type': 'Article', headline: 'Rivers run backwards', url: '/a' }),
      '<h1>Rivers run backwards</h1>',
    );
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        links: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' }, url: { type: 'string' } } },
        },
      },
    };
    expect(extract(html, schema).data).toEqual({ name: 'Rivers run backwards' });
  });
});
