/**
 * The schema extractor's fixture set: pages written here with the truth a reader of each page
 * would write down, in five kinds (products, articles, events, recipes, organizations) and the
 * markups sites use (JSON-LD, microdata, RDFa-lite, OpenGraph only, tables and `<dl>`, mixed),
 * most with decoys beside the subject (related products, teasers of other stories, the site's
 * own organization, a partner's badge). A truth of null is a field the page does not state.
 * Half `a` is the set the rules were written against; half `b` only confirms them.
 */

export interface ExtractFixture {
  readonly id: string;
  readonly half: 'a' | 'b';
  readonly url: string;
  readonly html: string;
  readonly schema: Record<string, unknown>;
  readonly truth: Record<string, unknown>;
}

const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
const doc = (head: string, body: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">${head}</head><body><header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header><main>${body}</main><footer><p>© Example</p></footer></body></html>`;

const str = { type: 'string' };
const num = { type: 'number' };
const date = { type: 'string', format: 'date' };
const list = { type: 'array', items: { type: 'string' } };

const SITE_ORG = ld({
  '@context': 'https://schema.org',
  '@type': 'Organization',
  name: 'Example Shop Ltd',
  url: 'https://shop.example.net/',
  logo: '/logo.png',
});
const BREADCRUMBS = ld({
  '@type': 'BreadcrumbList',
  itemListElement: [{ '@type': 'ListItem', position: 1, name: 'Home', item: 'https://shop.example.net/' }],
});

// ---------------------------------------------------------------------------------------------
// Products

const PRODUCT_SCHEMA = {
  type: 'object',
  properties: {
    name: str,
    price: num,
    currency: str,
    availability: { type: 'string', enum: ['InStock', 'OutOfStock', 'PreOrder'] },
    brand: str,
    image: { type: 'string', format: 'uri' },
    sku: str,
  },
  required: ['name', 'price'],
};

interface Product {
  name: string;
  price: number;
  shown: string;
  currency: string;
  availability: 'InStock' | 'OutOfStock' | 'PreOrder';
  brand: string;
  image: string;
  sku: string;
}

const PRODUCTS: Product[] = [
  {
    name: 'Acme Anvil 3000',
    price: 1299,
    shown: '€1.299,00',
    currency: 'EUR',
    availability: 'InStock',
    brand: 'Acme',
    image: '/img/anvil.jpg',
    sku: 'AN-3000',
  },
  {
    name: 'Trail Runner GTX',
    price: 149.95,
    shown: '$149.95',
    currency: 'USD',
    availability: 'OutOfStock',
    brand: 'Northpeak',
    image: '/img/trail.jpg',
    sku: 'TR-GTX-42',
  },
  {
    name: 'Espresso Grinder Mini',
    price: 89,
    shown: '£89.00',
    currency: 'GBP',
    availability: 'InStock',
    brand: 'Brewline',
    image: '/img/grinder.png',
    sku: 'EG-MINI',
  },
  {
    name: 'Oak Desk 140',
    price: 2450,
    shown: '2 450 kr',
    currency: 'SEK',
    availability: 'PreOrder',
    brand: 'Nordwood',
    image: '/img/desk.webp',
    sku: 'OD140',
  },
  {
    name: 'Noise-Cancelling Headphones X2',
    price: 279.99,
    shown: '$279.99',
    currency: 'USD',
    availability: 'InStock',
    brand: 'Sonique',
    image: '/img/x2.jpg',
    sku: 'SQ-X2-BLK',
  },
  {
    name: 'Cast Iron Skillet 26 cm',
    price: 39.5,
    shown: '39,50 €',
    currency: 'EUR',
    availability: 'InStock',
    brand: 'Ferrum',
    image: '/img/skillet.jpg',
    sku: 'FE-26',
  },
  {
    name: 'Mechanical Keyboard K87',
    price: 1049,
    shown: '$1,049.00',
    currency: 'USD',
    availability: 'OutOfStock',
    brand: 'Keyforge',
    image: '/img/k87.jpg',
    sku: 'KF-K87',
  },
  {
    name: 'Linen Duvet Cover',
    price: 120,
    shown: '£120',
    currency: 'GBP',
    availability: 'PreOrder',
    brand: 'Housewell',
    image: '/img/duvet.jpg',
    sku: 'HW-LDC-KING',
  },
];

const abs = (path: string) => `https://shop.example.net${path}`;

const relatedMicrodata = `<aside><h2>You may also like</h2>${['Steel Hammer', 'Rubber Mallet']
  .map(
    (name, i) =>
      `<div itemscope itemtype="https://schema.org/Product"><a itemprop="url" href="/p/r${i}"><span itemprop="name">${name}</span></a><div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price">${12 + i}.00</span><meta itemprop="priceCurrency" content="EUR"></div></div>`,
  )
  .join('')}</aside>`;

function productJsonLd(p: Product): string {
  return ld({
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: p.name,
    image: [p.image],
    sku: p.sku,
    brand: { '@type': 'Brand', name: p.brand },
    offers: {
      '@type': 'Offer',
      price: String(p.price),
      priceCurrency: p.currency,
      availability: `https://schema.org/${p.availability}`,
    },
  });
}

function productMicrodata(p: Product): string {
  return `<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">${p.name}</h1><img itemprop="image" src="${p.image}" alt="">
    <p>SKU: <span itemprop="sku">${p.sku}</span></p><p>By <span itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">${p.brand}</span></span></p>
    <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price" content="${p.price}">${p.shown}</span><meta itemprop="priceCurrency" content="${p.currency}"><link itemprop="availability" href="https://schema.org/${p.availability}"></div></div>`;
}

const STOCK_TEXT = { InStock: 'In stock', OutOfStock: 'Out of stock', PreOrder: 'Pre-order' };

function productPage(p: Product, variant: number): { html: string; truth: Record<string, unknown> } {
  const full = { ...p, image: abs(p.image) } as Record<string, unknown>;
  delete full.shown;
  switch (variant % 5) {
    case 0: // JSON-LD with the site's organization, breadcrumbs and related products in microdata
      return {
        html: doc(
          `<title>${p.name} | Example Shop</title>${SITE_ORG}${BREADCRUMBS}`,
          `${productJsonLd(p)}<h1>${p.name}</h1><p>${p.shown}</p>${relatedMicrodata}`,
        ),
        truth: full,
      };
    case 1: // microdata only, related products after it
      return {
        html: doc(`<title>${p.name} – Example Shop</title>`, `${productMicrodata(p)}${relatedMicrodata}`),
        truth: full,
      };
    case 2: // OpenGraph and product meta only: no SKU stated
      return {
        html: doc(
          `<title>Buy ${p.name} online | Example Shop</title><meta property="og:type" content="product"><meta property="og:title" content="${p.name}"><meta property="og:image" content="${abs(p.image)}">
           <meta property="product:price:amount" content="${p.price}"><meta property="product:price:currency" content="${p.currency}"><meta property="product:availability" content="${STOCK_TEXT[p.availability].toLowerCase()}"><meta property="product:brand" content="${p.brand}">`,
          `<div class="hero"><h2>${p.name}</h2><p>${p.shown}</p></div>`,
        ),
        truth: { ...full, sku: null },
      };
    case 3: // a heading and a spec table: the currency only as a sign, no image stated
      return {
        html: doc(
          `<title>${p.name}</title>`,
          `<h1>${p.name}</h1><table><tr><th>Price</th><td>${p.shown}</td></tr><tr><th>Brand</th><td>${p.brand}</td></tr><tr><th>Availability</th><td>${STOCK_TEXT[p.availability]}</td></tr><tr><th>SKU</th><td>${p.sku}</td></tr></table>
           <table><tr><th>Model</th><th>Price</th><th>Rating</th></tr><tr><td>Other</td><td>€5</td><td>4</td></tr></table>`,
        ),
        truth: { ...full, image: null },
      };
    default: // mixed: JSON-LD without brand, the brand in a <dl>, related products in JSON-LD of their own
      return {
        html: doc(
          `<title>${p.name}</title>${SITE_ORG}`,
          `${ld({ '@type': 'Product', name: p.name, image: abs(p.image), sku: p.sku, offers: { '@type': 'Offer', price: p.price, priceCurrency: p.currency, availability: `https://schema.org/${p.availability}` } })}
           <h1>${p.name}</h1><dl><dt>Brand</dt><dd>${p.brand}</dd><dt>Weight</dt><dd>2 kg</dd></dl>
           ${ld({ '@type': 'ItemList', name: 'Related', itemListElement: [{ '@type': 'ListItem', position: 1, item: { '@type': 'Product', name: 'Decoy Widget', url: '/p/decoy' } }] })}`,
        ),
        truth: full,
      };
  }
}

// ---------------------------------------------------------------------------------------------
// Articles

const ARTICLE_SCHEMA = {
  type: 'object',
  properties: {
    headline: str,
    author: str,
    datePublished: date,
    dateModified: date,
    publisher: str,
    image: { type: 'string', format: 'uri' },
  },
  required: ['headline'],
};

interface Article {
  headline: string;
  author: string;
  published: string;
  publishedText: string;
  modified: string;
  publisher: string;
  image: string;
}

const ARTICLES: Article[] = [
  {
    headline: 'Rivers run backwards in the delta',
    author: 'Ada Lovelace',
    published: '2026-03-02',
    publishedText: 'March 2, 2026',
    modified: '2026-03-03',
    publisher: 'The Daily Current',
    image: '/img/delta.jpg',
  },
  {
    headline: 'City council approves new cycle lanes',
    author: 'Brian Kernighan',
    published: '2025-11-14',
    publishedText: '14 November 2025',
    modified: '2025-11-15',
    publisher: 'Metro Ledger',
    image: '/img/lanes.jpg',
  },
  {
    headline: 'How we cut our build times in half',
    author: 'Grace Hopper',
    published: '2024-06-30',
    publishedText: 'June 30, 2024',
    modified: '2024-07-02',
    publisher: 'Engineering Notes',
    image: '/img/build.png',
  },
  {
    headline: 'The quiet return of the night train',
    author: 'Mary Somerville',
    published: '2025-01-09',
    publishedText: '9 January 2025',
    modified: '2025-01-10',
    publisher: 'Rail Weekly',
    image: '/img/train.jpg',
  },
  {
    headline: 'A field guide to urban foxes',
    author: 'Rachel Carson',
    published: '2023-09-21',
    publishedText: 'September 21, 2023',
    modified: '2023-09-22',
    publisher: 'Wild Streets',
    image: '/img/fox.jpg',
  },
  {
    headline: 'Ten years of the open-source bakery',
    author: 'Linus Baker',
    published: '2026-02-11',
    publishedText: '11 February 2026',
    modified: '2026-02-12',
    publisher: 'Crumb Magazine',
    image: '/img/bread.jpg',
  },
  {
    headline: 'What the tide gauges tell us',
    author: 'Marie Tharp',
    published: '2024-12-01',
    publishedText: 'December 1, 2024',
    modified: '2024-12-05',
    publisher: 'Coastal Review',
    image: '/img/tide.jpg',
  },
];

const teasers = `<section><h2>More stories</h2>${['Another story entirely', 'Yet another story']
  .map(
    (h, i) =>
      `<article itemscope itemtype="https://schema.org/BlogPosting"><h3 itemprop="headline">${h}</h3><time itemprop="datePublished" datetime="2020-01-0${i + 1}">Jan ${i + 1}</time></article>`,
  )
  .join('')}</section>`;

function articlePage(a: Article, variant: number): { html: string; truth: Record<string, unknown> } {
  const site = 'https://news.example.org';
  const full = {
    headline: a.headline,
    author: a.author,
    datePublished: a.published,
    dateModified: a.modified,
    publisher: a.publisher,
    image: site + a.image,
  };
  switch (variant % 4) {
    case 0: // JSON-LD in a @graph with the WebPage and the publisher referenced by @id; teasers in microdata
      return {
        html: doc(
          `<title>${a.headline} - ${a.publisher}</title>${ld({
            '@context': 'https://schema.org',
            '@graph': [
              {
                '@type': 'Organization',
                '@id': '#org',
                name: a.publisher,
                logo: { '@type': 'ImageObject', url: '/logo.png' },
              },
              { '@type': 'WebPage', '@id': '#page', name: `${a.headline} - ${a.publisher}` },
              {
                '@type': 'NewsArticle',
                headline: a.headline,
                image: { '@type': 'ImageObject', url: a.image },
                author: [{ '@type': 'Person', name: a.author }],
                publisher: { '@id': '#org' },
                datePublished: `${a.published}T08:00:00+01:00`,
                dateModified: `${a.modified}T09:30:00+01:00`,
                mainEntityOfPage: { '@id': '#page' },
              },
            ],
          })}`,
          `<article><h1>${a.headline}</h1><p>By ${a.author}</p><p>Body text.</p></article>${teasers}`,
        ),
        truth: full,
      };
    case 1: // OpenGraph and article meta only, og:title with the site's name after the headline
      return {
        html: doc(
          `<title>${a.headline} | ${a.publisher}</title><meta property="og:type" content="article"><meta property="og:title" content="${a.headline} | ${a.publisher}"><meta property="og:site_name" content="${a.publisher}"><meta property="og:image" content="${a.image}">
           <meta name="author" content="${a.author}"><meta property="article:published_time" content="${a.published}T07:00:00Z"><meta property="article:modified_time" content="${a.modified}T07:00:00Z">`,
          `<article><h1>${a.headline}</h1><p>Body.</p></article>`,
        ),
        truth: full,
      };
    case 2: // microdata, then teasers of other stories in microdata too; no publisher or image stated
      return {
        html: doc(
          `<title>${a.headline}</title>`,
          `<article itemscope itemtype="https://schema.org/Article"><h1 itemprop="headline">${a.headline}</h1><p>By <span itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">${a.author}</span></span>,
           <time itemprop="datePublished" datetime="${a.published}">${a.publishedText}</time> (updated <time itemprop="dateModified" datetime="${a.modified}">later</time>)</p><p>Body.</p></article>${teasers}`,
        ),
        truth: { ...full, publisher: null, image: null },
      };
    default: // a byline in a <dl>, dates written out; no image, no modified date
      return {
        html: doc(
          `<title>${a.headline}</title><meta property="og:site_name" content="${a.publisher}">`,
          `<article><h1>${a.headline}</h1><dl class="meta"><dt>Author</dt><dd>${a.author}</dd><dt>Published</dt><dd>${a.publishedText}</dd></dl><p>Body.</p></article>`,
        ),
        truth: { ...full, image: null, dateModified: null },
      };
  }
}

// ---------------------------------------------------------------------------------------------
// Events

const EVENT_SCHEMA = {
  type: 'object',
  properties: { name: str, startDate: date, endDate: date, location: str, city: str, organizer: str },
  required: ['name', 'startDate'],
};

interface Event {
  name: string;
  start: string;
  end: string;
  startText: string;
  venue: string;
  city: string;
  organizer: string;
}

const EVENTS: Event[] = [
  {
    name: 'Harbour Jazz Night',
    start: '2026-07-18',
    end: '2026-07-18',
    startText: 'July 18, 2026',
    venue: 'Pier 4 Hall',
    city: 'Bristol',
    organizer: 'Harbour Arts Trust',
  },
  {
    name: 'TypeScript Meetup #42',
    start: '2026-04-09',
    end: '2026-04-09',
    startText: '9 April 2026',
    venue: 'The Loft',
    city: 'Leeds',
    organizer: 'Leeds JS',
  },
  {
    name: 'Spring Book Fair',
    start: '2026-05-02',
    end: '2026-05-04',
    startText: 'May 2, 2026',
    venue: 'Old Corn Exchange',
    city: 'Cambridge',
    organizer: 'Cambridge Booksellers',
  },
  {
    name: 'Open Data Day',
    start: '2026-03-07',
    end: '2026-03-07',
    startText: '7 March 2026',
    venue: 'Central Library',
    city: 'Manchester',
    organizer: 'Open Knowledge North',
  },
  {
    name: 'Autumn Marathon',
    start: '2025-10-12',
    end: '2025-10-12',
    startText: 'October 12, 2025',
    venue: 'Riverside Park',
    city: 'York',
    organizer: 'York Runners',
  },
  {
    name: 'Ceramics Workshop',
    start: '2026-01-24',
    end: '2026-01-25',
    startText: '24 January 2026',
    venue: 'Clay Studio',
    city: 'Bath',
    organizer: 'Bath Makers',
  },
];

function eventPage(e: Event, variant: number): { html: string; truth: Record<string, unknown> } {
  const full = {
    name: e.name,
    startDate: e.start,
    endDate: e.end,
    location: e.venue,
    city: e.city,
    organizer: e.organizer,
  };
  switch (variant % 4) {
    case 3: // a <dl> whose date carries a weekday and a time: not read as a date, rightly or not
      return {
        html: doc(
          `<title>${e.name}</title><meta property="og:title" content="${e.name}">`,
          `<h1 class="logo">Whats On</h1><h1>${e.name}</h1><dl><dt>Date</dt><dd>Saturday ${e.startText}, 7pm</dd><dt>Location</dt><dd>${e.venue}</dd></dl>`,
        ),
        truth: { ...full, endDate: null, city: null, organizer: null },
      };
    case 0:
      return {
        html: doc(
          `<title>${e.name} tickets</title>${ld({ '@context': 'https://schema.org', '@type': 'Event', name: e.name, startDate: `${e.start}T19:30:00+00:00`, endDate: `${e.end}T23:00:00+00:00`, location: { '@type': 'Place', name: e.venue, address: { '@type': 'PostalAddress', addressLocality: e.city, addressCountry: 'GB' } }, organizer: { '@type': 'Organization', name: e.organizer, url: '/org' } })}`,
          `<h1>${e.name}</h1><aside><h2>Other events</h2><ul><li>Quiz Night, 3 March</li></ul></aside>`,
        ),
        truth: full,
      };
    case 1: // microdata; the end date not stated
      return {
        html: doc(
          `<title>${e.name}</title>`,
          `<div itemscope itemtype="https://schema.org/Event"><h1 itemprop="name">${e.name}</h1><time itemprop="startDate" datetime="${e.start}T18:00">${e.startText}</time>
           <div itemprop="location" itemscope itemtype="https://schema.org/Place"><span itemprop="name">${e.venue}</span>, <span itemprop="address" itemscope itemtype="https://schema.org/PostalAddress"><span itemprop="addressLocality">${e.city}</span></span></div>
           <p>Organised by <span itemprop="organizer" itemscope itemtype="https://schema.org/Organization"><span itemprop="name">${e.organizer}</span></span></p></div>`,
        ),
        truth: { ...full, endDate: null },
      };
    default: // a heading and a <dl>; the end date not stated
      return {
        html: doc(
          `<title>${e.name} | What's on</title>`,
          `<h1>${e.name}</h1><dl><dt>When</dt><dd>${e.startText}</dd><dt>Venue</dt><dd>${e.venue}</dd><dt>City</dt><dd>${e.city}</dd><dt>Organiser</dt><dd>${e.organizer}</dd></dl>`,
        ),
        truth: { ...full, endDate: null },
      };
  }
}

// ---------------------------------------------------------------------------------------------
// Recipes

const RECIPE_SCHEMA = {
  type: 'object',
  properties: {
    name: str,
    author: str,
    prepTime: str,
    totalTime: str,
    servings: str,
    ingredients: list,
    calories: str,
  },
  required: ['name'],
};

interface Recipe {
  name: string;
  author: string;
  prep: string;
  total: string;
  servings: string;
  ingredients: string[];
  calories: string;
}

const RECIPES: Recipe[] = [
  {
    name: 'Lemon Drizzle Cake',
    author: 'Mary Berry',
    prep: 'PT20M',
    total: 'PT1H',
    servings: '8',
    ingredients: ['225 g butter', '225 g caster sugar', '4 eggs', '1 lemon'],
    calories: '320 kcal',
  },
  {
    name: 'Weeknight Dal',
    author: 'Meera Sodha',
    prep: 'PT10M',
    total: 'PT40M',
    servings: '4',
    ingredients: ['250 g red lentils', '1 onion', '2 tsp turmeric'],
    calories: '410 kcal',
  },
  {
    name: 'Tomato Galette',
    author: 'Yotam Ottolenghi',
    prep: 'PT25M',
    total: 'PT1H15M',
    servings: '6',
    ingredients: ['1 sheet puff pastry', '500 g tomatoes', '100 g ricotta'],
    calories: '290 kcal',
  },
  {
    name: 'Overnight Oats',
    author: 'Jamie Oliver',
    prep: 'PT5M',
    total: 'PT8H5M',
    servings: '2',
    ingredients: ['100 g oats', '200 ml milk', '1 apple, grated'],
    calories: '350 kcal',
  },
  {
    name: 'Miso Glazed Aubergine',
    author: 'Nigel Slater',
    prep: 'PT10M',
    total: 'PT35M',
    servings: '2',
    ingredients: ['2 aubergines', '2 tbsp white miso', '1 tbsp mirin'],
    calories: '240 kcal',
  },
  {
    name: 'Sourdough Pancakes',
    author: 'Claire Ptak',
    prep: 'PT15M',
    total: 'PT30M',
    servings: '4',
    ingredients: ['200 g sourdough starter', '1 egg', '150 ml milk', '1 tsp baking soda'],
    calories: '260 kcal',
  },
];

function recipePage(r: Recipe, variant: number): { html: string; truth: Record<string, unknown> } {
  const full = {
    name: r.name,
    author: r.author,
    prepTime: r.prep,
    totalTime: r.total,
    servings: r.servings,
    ingredients: r.ingredients,
    calories: r.calories,
  };
  if (variant % 2 === 0) {
    return {
      html: doc(
        `<title>${r.name} recipe</title>${ld({ '@context': 'https://schema.org', '@type': 'Recipe', name: r.name, author: { '@type': 'Person', name: r.author }, prepTime: r.prep, totalTime: r.total, recipeYield: r.servings, recipeIngredient: r.ingredients, nutrition: { '@type': 'NutritionInformation', calories: r.calories }, recipeInstructions: [{ '@type': 'HowToStep', text: 'Mix.' }] })}`,
        `<h1>${r.name}</h1><aside>${ld({ '@type': 'WebSite', name: 'Good Food Pages', url: '/' })}</aside>`,
      ),
      truth: full,
    };
  }
  // microdata with one itemprop per ingredient; calories not stated
  return {
    html: doc(
      `<title>${r.name}</title>`,
      `<div itemscope itemtype="https://schema.org/Recipe"><h1 itemprop="name">${r.name}</h1><p>By <span itemprop="author">${r.author}</span></p>
       <p>Prep <meta itemprop="prepTime" content="${r.prep}">${r.prep.slice(2)}, total <meta itemprop="totalTime" content="${r.total}">${r.total.slice(2)}; serves <span itemprop="recipeYield">${r.servings}</span></p>
       <ul>${r.ingredients.map((i) => `<li itemprop="recipeIngredient">${i}</li>`).join('')}</ul></div>`,
    ),
    truth: { ...full, calories: null },
  };
}

// ---------------------------------------------------------------------------------------------
// Organizations

const ORG_SCHEMA = {
  type: 'object',
  properties: {
    name: str,
    email: str,
    telephone: str,
    city: str,
    postalCode: str,
    foundingDate: str,
    url: { type: 'string', format: 'uri' },
  },
  required: ['name'],
};

interface Org {
  name: string;
  email: string;
  phone: string;
  city: string;
  postcode: string;
  founded: string;
  host: string;
}

const ORGS: Org[] = [
  {
    name: 'Northwind Traders',
    email: 'hello@northwind.co.uk',
    phone: '+44 20 7946 0123',
    city: 'London',
    postcode: 'EC1A 1BB',
    founded: '1998',
    host: 'northwind.co.uk',
  },
  {
    name: 'Brightside Dental',
    email: 'reception@brightside.co.uk',
    phone: '+44 161 496 0456',
    city: 'Manchester',
    postcode: 'M1 1AE',
    founded: '2011',
    host: 'brightside.co.uk',
  },
  {
    name: 'Fenland Bikes',
    email: 'shop@fenlandbikes.co.uk',
    phone: '+44 1223 496 0789',
    city: 'Ely',
    postcode: 'CB7 4EW',
    founded: '2004',
    host: 'fenlandbikes.co.uk',
  },
  {
    name: 'Granite Legal LLP',
    email: 'enquiries@granitelegal.co.uk',
    phone: '+44 131 496 0011',
    city: 'Edinburgh',
    postcode: 'EH1 1YZ',
    founded: '1987',
    host: 'granitelegal.co.uk',
  },
  {
    name: 'Harbourside Yoga',
    email: 'namaste@harbourside.co.uk',
    phone: '+44 117 496 0222',
    city: 'Bristol',
    postcode: 'BS1 4DJ',
    founded: '2016',
    host: 'harbourside.co.uk',
  },
  {
    name: 'Pennine Roofing',
    email: 'quotes@pennineroofing.co.uk',
    phone: '+44 113 496 0333',
    city: 'Leeds',
    postcode: 'LS1 4AP',
    founded: '2001',
    host: 'pennineroofing.co.uk',
  },
];

function orgPage(o: Org, variant: number): { html: string; truth: Record<string, unknown> } {
  const url = `https://www.${o.host}/`;
  const full = {
    name: o.name,
    email: o.email,
    telephone: o.phone,
    city: o.city,
    postalCode: o.postcode,
    foundingDate: o.founded,
    url,
  };
  const partner = `<p itemscope itemtype="https://schema.org/Organization">Site by <a itemprop="url" href="https://webco.example.com/"><span itemprop="name">WebCo</span></a></p>`;
  switch (variant % 3) {
    case 0:
      return {
        html: doc(
          `<title>Contact ${o.name}</title>${ld({ '@context': 'https://schema.org', '@type': 'LocalBusiness', name: o.name, url, email: o.email, telephone: o.phone, foundingDate: o.founded, address: { '@type': 'PostalAddress', addressLocality: o.city, postalCode: o.postcode, addressCountry: 'GB' } })}`,
          `<h1>Contact us</h1><p>Call us on ${o.phone}.</p>${partner}`,
        ),
        truth: full,
      };
    case 1: // microdata; founding date not stated
      return {
        html: doc(
          `<title>${o.name}</title>`,
          `<div itemscope itemtype="https://schema.org/Organization"><h1 itemprop="name">${o.name}</h1><link itemprop="url" href="${url}">
           <a itemprop="email" href="mailto:${o.email}">${o.email}</a> · <span itemprop="telephone">${o.phone}</span>
           <div itemprop="address" itemscope itemtype="https://schema.org/PostalAddress"><span itemprop="addressLocality">${o.city}</span> <span itemprop="postalCode">${o.postcode}</span></div></div>${partner}`,
        ),
        truth: { ...full, foundingDate: null },
      };
    default: // a plain contact page: a heading, links, a <dl>, the canonical link
      return {
        html: doc(
          `<title>${o.name} | Contact</title><link rel="canonical" href="${url}">`,
          `<h1>${o.name}</h1><p>Email <a href="mailto:${o.email}">${o.email}</a> or call <a href="tel:${o.phone.replaceAll(' ', '')}">${o.phone}</a>.</p>
           <dl><dt>City</dt><dd>${o.city}</dd><dt>Postcode</dt><dd>${o.postcode}</dd><dt>Founded</dt><dd>${o.founded}</dd></dl>${partner}`,
        ),
        truth: full,
      };
  }
}

// ---------------------------------------------------------------------------------------------
// Listings: a grid of products as a list of objects

const LISTING_SCHEMA = {
  type: 'object',
  properties: {
    products: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: str, price: num, url: { type: 'string', format: 'uri' } },
        required: ['name'],
      },
    },
  },
  required: ['products'],
};

function listingPage(shop: number, variant: number): { html: string; truth: Record<string, unknown> } {
  const items = Array.from({ length: 12 }, (_, i) => ({
    name: `Shop ${shop} item ${i}`,
    price: 10 + i + shop / 4,
    url: `/s${shop}/p/${i}`,
  }));
  const truth = { products: items.map((item) => ({ ...item, url: `https://shop.example.net${item.url}` })) };
  const featured = `<aside itemscope itemtype="https://schema.org/Article"><h2 itemprop="headline">Our spring guide</h2><a itemprop="url" href="/guide">Read</a></aside>`;
  if (variant % 2 === 0) {
    return {
      html: doc(
        `<title>Shop ${shop}</title>${SITE_ORG}${ld({ '@type': 'ItemList', itemListElement: items.map((item, i) => ({ '@type': 'ListItem', position: i + 1, item: { '@type': 'Product', name: item.name, url: item.url, offers: { '@type': 'Offer', price: item.price.toFixed(2), priceCurrency: 'EUR' } } })) })}`,
        `<h1>All products</h1>${featured}`,
      ),
      truth,
    };
  }
  return {
    html: doc(
      `<title>Shop ${shop}</title>`,
      `<h1>All products</h1>${featured}<ul class="grid">${items
        .map(
          (item) =>
            `<li itemscope itemtype="https://schema.org/Product"><a itemprop="url" href="${item.url}"><span itemprop="name">${item.name}</span></a> <span itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price">€${item.price.toFixed(2).replace('.', ',')}</span></span></li>`,
        )
        .join('')}</ul>`,
    ),
    truth,
  };
}

/** Every fixture: each item in two markups, the even items in half `a`, the odd in `b`. */
export function extractFixtures(): ExtractFixture[] {
  const out: ExtractFixture[] = [];
  const add = <T>(
    kind: string,
    items: readonly T[],
    schema: Record<string, unknown>,
    url: (i: number) => string,
    make: (item: T, variant: number) => { html: string; truth: Record<string, unknown> },
  ) => {
    items.forEach((item, i) => {
      // Two markups of each item; the items alternate between the halves, so each half holds every markup.
      for (const variant of [i, i + 2]) {
        const { html, truth } = make(item, variant);
        out.push({
          id: `${kind}-${i}-v${variant}`,
          half: i % 2 === 0 ? 'a' : 'b',
          url: url(i),
          html,
          schema,
          truth,
        });
      }
    });
  };
  add('product', PRODUCTS, PRODUCT_SCHEMA, (i) => `https://shop.example.net/p/${i}`, productPage);
  add('article', ARTICLES, ARTICLE_SCHEMA, (i) => `https://news.example.org/story/${i}`, articlePage);
  add('event', EVENTS, EVENT_SCHEMA, (i) => `https://events.example.org/e/${i}`, eventPage);
  add('recipe', RECIPES, RECIPE_SCHEMA, (i) => `https://food.example.org/r/${i}`, recipePage);
  add('organization', ORGS, ORG_SCHEMA, (i) => `https://www.${ORGS[i]?.host}/contact`, orgPage);
  add('listing', [0, 1, 2, 3], LISTING_SCHEMA, (i) => `https://shop.example.net/s${i}/`, listingPage);
  return out;
}
