/**
 * The built-in analyzer's labelled set: pages written here in the kinds the web is made of
 * (SaaS landing pages, product and listing pages, news, encyclopedia articles, docs, local
 * businesses, forums, blogs, courses, charities), each inside the furniture real sites carry:
 * menus, tickers, sidebars with promos and newsletter boxes, footers. Beside each page, the answers a
 * reader accepts, written down before the analyzer's rules were tuned:
 * - `categories`: the taxonomy names (taxonomy.ts) that are right for the page; an empty set means
 *   no row fits and the analyzer should return none;
 * - `audience`: phrases naming whom the page says it is for; empty when the page states no audience
 *   (the analyzer should then return '').
 * Half `a` is the set the rules were tuned on; half `b` only confirms them.
 */

export interface AnalysisFixture {
  readonly id: string;
  readonly half: 'a' | 'b';
  readonly url: string;
  readonly html: string;
  readonly categories: readonly string[];
  readonly audience: readonly string[];
}

interface Page {
  readonly title: string;
  readonly description?: string;
  readonly jsonLd?: unknown;
  readonly site: string;
  readonly nav: readonly string[];
  readonly main: string;
  /** Beside the main content: promos, newsletter boxes, most-read lists (not inside an aside). */
  readonly rail?: string;
  /** Above the main content: a ticker or a promo banner. */
  readonly banner?: string;
}

const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;');

function html(p: Page): string {
  const ld =
    p.jsonLd === undefined ? '' : `<script type="application/ld+json">${JSON.stringify(p.jsonLd)}</script>`;
  const description =
    p.description === undefined ? '' : `<meta name="description" content="${esc(p.description)}">`;
  const nav = p.nav
    .map((n) => `<li><a href="/${n.toLowerCase().replace(/\W+/g, '-')}">${n}</a></li>`)
    .join('');
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${p.title}</title>${description}${ld}</head>
<body><div class="site-header"><a class="logo" href="/">${p.site}</a><nav class="main-nav"><ul>${nav}</ul></nav>
<form class="search" role="search"><input name="q" placeholder="Search"><button>Search</button></form></div>
${p.banner ?? ''}
<div class="layout"><div class="content-col">${p.main}</div>
${p.rail === undefined ? '' : `<div class="rail widget-area">${p.rail}</div>`}</div>
<div class="site-footer"><div class="footer-cols"><div><h4>Company</h4><ul><li><a href="/about">About us</a></li><li><a href="/careers">Careers</a></li><li><a href="/press">Press</a></li></ul></div>
<div><h4>Help</h4><ul><li><a href="/contact">Contact</a></li><li><a href="/privacy">Privacy policy</a></li><li><a href="/terms">Terms</a></li></ul></div></div>
<p>© 2026 ${p.site}. All rights reserved.</p></div>
<div class="cookie-bar"><p>We use cookies to improve your experience. <button>Accept</button></p></div></body></html>`;
}

const NEWS_NAV = ['Home', 'UK', 'World', 'Politics', 'Business', 'Sport', 'Culture', 'Opinion'];
const NEWS_RAIL = `<div class="most-read"><h3>Most read</h3><ol><li><a href="/n/1">Storm warning issued for the east coast</a></li><li><a href="/n/2">Ten restaurants worth the queue</a></li><li><a href="/n/3">Inside the club's record transfer</a></li></ol></div>
<div class="promo subscribe-box"><h3>Subscribe today</h3><p>Independent journalism for curious minds. Get unlimited access for just £1 a week for the first three months.</p><ul><li>Ad-free reading on every device</li><li>Exclusive newsletters every morning</li><li>Full archive back to 1998</li></ul></div>
<div class="promo"><h3>Puzzles</h3><p>Daily crosswords and sudoku, perfect for commuters and families.</p></div>`;
const NEWS_TICKER = `<div class="ticker"><span>Live:</span> <a href="/live">Markets open lower as oil climbs</a> · <a href="/live2">Rail strikes called off</a></div>`;

const SAAS_NAV = ['Product', 'Pricing', 'Customers', 'Docs', 'Blog', 'Sign in', 'Start free trial'];
const SHOP_NAV = ['Women', 'Men', 'Kids', 'Home', 'Electronics', 'Sale', 'Basket (0)'];
const SHOP_BANNER = `<div class="promo-banner"><p>Free delivery on orders over £50. Extra 10% off for students with a valid ID.</p></div>`;
const SHOP_RAIL = `<div class="recommendations"><h3>Customers also bought</h3><ul><li>Travel adapter with two USB ports £12.99</li><li>Soft carry pouch in grey £9.50</li><li>Gift wrapping for any occasion</li></ul></div>
<div class="promo"><p>Join our rewards club: points on every order, made for loyal shoppers.</p></div>`;
const WIKI_NAV = [
  'Main page',
  'Contents',
  'Current events',
  'Random article',
  'About',
  'Contact us',
  'Donate',
];
const WIKI_RAIL = `<div class="toc-box"><h3>Tools</h3><ul><li><a href="/w/links">What links here</a></li><li><a href="/w/related">Related changes</a></li><li><a href="/w/cite">Cite this page</a></li></ul></div>
<div class="donate-banner"><p>Please donate: we are a nonprofit for everyone who wants free knowledge. Visit us at our office on Monday to Saturday.</p></div>`;
const DOCS_NAV = ['Guides', 'API reference', 'CLI', 'Changelog', 'Community', 'GitHub'];
const DOCS_RAIL = `<div class="on-this-page"><h3>On this page</h3><ul><li><a href="#a">Overview</a></li><li><a href="#b">Options</a></li><li><a href="#c">Examples</a></li></ul></div>
<div class="promo"><h3>Acme Cloud</h3><p>Deploy in seconds. Built for startups and enterprises alike. Start a free trial today.</p><ul><li>Automatic TLS certificates</li><li>Global edge network</li></ul></div>`;
const FORUM_NAV = ['Forums', "What's new", 'Members', 'Log in', 'Register'];
const FORUM_RAIL = `<div class="similar-threads"><h3>Similar threads</h3><ul><li><a href="/t/1">Help needed urgently</a></li><li><a href="/t/2">Is this normal?</a></li></ul></div>
<div class="sponsor"><p>Sponsored: premium membership for enthusiasts removes ads and unlocks private forums.</p><ul><li>No adverts anywhere</li><li>Private messaging without limits</li><li>Custom profile badges</li></ul></div>`;
const LOCAL_NAV = ['Home', 'About', 'Services', 'Prices', 'Contact'];
const BLOG_NAV = ['Home', 'Articles', 'Newsletter', 'About'];
const BLOG_RAIL = `<div class="author-box"><p>Hi, I'm the writer behind this blog. Sign up for my newsletter, written for busy professionals, and get a free guide.</p></div>
<div class="popular-posts"><h3>Popular posts</h3><ul><li><a href="/p/1">My favourite tools this year</a></li><li><a href="/p/2">How I work</a></li></ul></div>`;

const ld = (type: string, extra: Record<string, unknown>) => ({
  '@context': 'https://schema.org',
  '@type': type,
  ...extra,
});

// biome-ignore format: one page per entry reads better than the formatter's layout
const PAGES: readonly (Omit<AnalysisFixture, 'html' | 'url'> & { page: Page })[] = [
  // ------------------------------------------------------------------------------- half a
  {
    id: 'saas-uptime', half: 'a', categories: ['Software / SaaS', 'Infrastructure & DevOps', 'Developer Tools'], audience: ['small engineering teams'],
    page: { site: 'Beaconly', title: 'Beaconly: uptime monitoring and status pages', description: 'Uptime monitoring, alerting and status pages built for small engineering teams.', nav: SAAS_NAV,
      main: `<section class="hero"><h1>Know about outages before your customers do</h1><p>Beaconly checks your websites and APIs every 30 seconds from 14 regions and alerts whoever is on call.</p><a class="cta" href="/signup">Start your free trial</a></section>
<section class="features"><h2>Features</h2><div class="feature-card"><h3>Checks from 14 regions</h3><p>HTTP, TCP, DNS and keyword checks.</p></div><div class="feature-card"><h3>On-call rotations</h3><p>Escalate to the next person after five minutes.</p></div><div class="feature-card"><h3>Hosted status pages</h3><p>Tell customers what is going on during an incident.</p></div></section>
<section><h2>Who it is for</h2><p>Beaconly is built for small engineering teams that run production services without a dedicated operations group.</p></section>
<section class="pricing"><h2>Pricing</h2><p>The Starter plan costs $19 per month for 20 monitors. Every plan includes a 14-day free trial, no credit card required.</p></section>` } },
  {
    id: 'product-headphones', half: 'a', categories: ['E-commerce', 'Consumer Electronics'], audience: [],
    page: { site: 'Voltmart', title: 'Aurora ANC Wireless Headphones | Voltmart', description: 'Buy Aurora ANC wireless headphones with 40-hour battery life. Free delivery and 30-day returns.', nav: SHOP_NAV, banner: SHOP_BANNER, rail: SHOP_RAIL,
      main: `<div class="product"><h1>Aurora ANC Wireless Headphones</h1><p class="price">£129.00</p><p class="stock">In stock: dispatched within 24 hours</p><button>Add to basket</button>
<h2>Product details</h2><ul><li>Active noise cancelling with three levels</li><li>40-hour battery with fast charging</li><li>Bluetooth 5.3 multipoint pairing</li><li>Foldable design with hard case</li></ul>
<p>The Aurora headphones block out the hum of trains and offices while keeping voices clear. Ten minutes on the charger give four hours of playback.</p>
<h2>Delivery and returns</h2><p>Free standard delivery on orders over £50. Return any unused item within 30 days for a full refund.</p>
<h2>Customer reviews</h2><div class="review"><p>Comfortable for a whole flight and the battery lasts all week. Verified buyer.</p></div></div>` } },
  {
    id: 'news-council-budget', half: 'a', categories: ['News & Media', 'Government & Politics', 'Finance & Banking'], audience: [],
    page: { site: 'The Northgate Herald', title: 'Council agrees 4.9% tax rise to protect bin collections | The Northgate Herald', description: 'Councillors backed the budget after a four-hour debate.', nav: NEWS_NAV, banner: NEWS_TICKER, rail: NEWS_RAIL,
      main: `<article><h1>Council agrees 4.9% tax rise to protect bin collections</h1><p class="byline">By Priya Raman, local government reporter</p>
<p>Northgate council has approved a 4.9% rise in council tax after a four-hour budget meeting on Wednesday night.</p>
<p>The council's finance chief said the increase was needed to close a £12 million gap and keep weekly bin collections and library opening hours unchanged.</p>
<p>Opposition councillors voted against the plan, arguing that residents were already struggling with higher energy bills. "This budget is for the council, not for residents," said the opposition leader.</p>
<p>The average band D household will pay £86 more a year. The new rates take effect in April.</p></article>` } },
  {
    id: 'wiki-t-test', half: 'a', categories: ['Science & Research', 'Analytics & Data'], audience: [],
    page: { site: 'Openpedia', title: "Student's t-test - Openpedia", nav: WIKI_NAV, rail: WIKI_RAIL,
      main: `<div id="content"><h1>Student's t-test</h1><p>A <b>Student's t-test</b> is a statistical test used to determine whether the means of two groups differ, when the test statistic follows a Student's t-distribution under the null hypothesis.</p>
<h2>History</h2><p>The test was introduced by William Sealy Gosset, who worked for the Guinness brewery in Dublin and published under the pen name "Student". Gosset needed a method for small samples of barley, and the brewery, a local business, did not allow staff to publish under their own names.</p>
<h2>Uses</h2><p>Common uses include the one-sample test of whether a mean equals a specified value, and the two-sample test for independent groups, for example students in two classes taught by different teachers.</p><p>A paired test compares measurements taken on the same subjects, such as patients before and after a treatment.</p>
<h2>Assumptions</h2><ul><li>The sample means follow a normal distribution</li><li>The variances of the two populations are equal (for the pooled test)</li><li>The observations are independent</li></ul>
<h2>Calculation</h2><p>The statistic is the difference of the sample means divided by the standard error of that difference. The degrees of freedom depend on the sample sizes. Software such as R, Python's SciPy and spreadsheet programs compute the p-value from the statistic.</p>
<h2>See also</h2><ul><li><a href="/w/z">Z-test</a></li><li><a href="/w/anova">Analysis of variance</a></li></ul>
<h2>References</h2><ol><li>Student (1908). "The probable error of a mean". Biometrika. 6 (1): 1–25.</li></ol></div>` } },
  {
    id: 'docs-cli-install', half: 'a', categories: ['Documentation', 'Developer Tools'], audience: [],
    page: { site: 'Kitewire Docs', title: 'Installing the Kitewire CLI | Kitewire Docs', nav: DOCS_NAV, rail: DOCS_RAIL,
      main: `<main><h1>Installing the CLI</h1><p>The Kitewire CLI lets you deploy functions, tail logs and manage secrets from your terminal.</p>
<h2>Requirements</h2><ul><li>Node.js 20 or later</li><li>A Kitewire account and an API token</li></ul>
<h2>Install with npm</h2><pre><code>npm install -g @kitewire/cli</code></pre><p>Run <code>kitewire --version</code> to check the installation.</p>
<h2>Configuration</h2><p>The CLI reads its configuration from <code>~/.kitewire/config.toml</code>. The <code>token</code> option holds your API token; the <code>region</code> option defaults to <code>eu-west</code>.</p>
<h2>Next steps</h2><p>Follow the quickstart guide to deploy your first function.</p></main>` } },
  {
    id: 'local-dentist', half: 'a', categories: ['Local Business', 'Health & Medicine'], audience: [],
    page: { site: 'Brookside Dental', title: 'Brookside Dental Practice, Halton', description: 'NHS and private dental care in Halton. New patients welcome.', nav: LOCAL_NAV,
      main: `<section class="hero"><h1>Brookside Dental Practice</h1><p>Friendly NHS and private dental care on Halton high street since 1994.</p></section>
<section class="services"><h2>Our services</h2><ul><li>Check-ups and hygiene appointments</li><li>White fillings and crowns</li><li>Teeth whitening</li><li>Emergency dental appointments</li></ul></section>
<section><h2>Opening hours</h2><ul><li>Monday to Friday: 8:30 to 17:30</li><li>Saturday: 9:00 to 13:00</li></ul></section>
<section><h2>Find us</h2><address>14 Market Street, Halton, LS15 7AB</address><p>Free parking behind the practice. Call 0113 496 0123 to book.</p></section>` } },
  {
    id: 'forum-tomato-blight', half: 'a', categories: ['Home & Garden'], audience: [],
    page: { site: 'GrowTalk Forums', title: 'Tomato leaves turning brown with spots - is it blight? | GrowTalk', nav: FORUM_NAV, rail: FORUM_RAIL,
      main: `<div class="thread"><h1>Tomato leaves turning brown with spots - is it blight?</h1>
<div class="post"><p class="author">greenfingers_58</p><p>My outdoor tomatoes have brown patches on the lower leaves and some stems have dark streaks. We've had a very wet August. Is this blight and can I save the fruit?</p></div>
<div class="post"><p class="author">allotment_dave</p><p>Sounds like blight to me. Remove the affected leaves straight away and don't compost them. Pick any green tomatoes and ripen them indoors on a windowsill.</p></div>
<div class="post"><p class="author">PlotHolder</p><p>Next year try blight-resistant varieties like Crimson Crush and water at the base of the plant, not over the leaves. A greenhouse helps a lot in the garden too.</p></div></div>` } },
  {
    id: 'saas-invoicing', half: 'a', categories: ['Software / SaaS', 'Finance & Banking'], audience: ['freelancers', 'freelancers and independent consultants'],
    page: { site: 'Tallybook', title: 'Tallybook - invoicing software for freelancers', description: 'Send invoices, track expenses and get paid faster.', nav: SAAS_NAV,
      main: `<section class="hero"><h1>Invoicing for freelancers and independent consultants</h1><p>Create professional invoices in seconds, chase late payments automatically and see what you are owed at a glance.</p></section>
<section id="features"><h2>Why Tallybook</h2><ul><li>Automatic payment reminders</li><li>Card and bank transfer payments</li><li>Expense tracking with receipt scanning</li><li>Tax reports ready for your accountant</li></ul></section>
<section><h2>Pricing</h2><p>Free for up to three clients. Pro costs $12 per month with unlimited clients and invoices.</p></section>
<section class="testimonials"><blockquote><p>"I used to lose a day a month to invoicing. Now it takes ten minutes." - Mara, illustrator</p></blockquote></section>` } },
  {
    id: 'course-python-beginners', half: 'a', categories: ['Education', 'Developer Tools'], audience: ['beginners', 'complete beginners', 'complete beginners with no programming experience'],
    page: { site: 'Codeyard Academy', title: 'Python for Complete Beginners - Online Course | Codeyard Academy', description: 'A six-week online Python course for complete beginners.', nav: ['Courses', 'Paths', 'For business', 'Pricing', 'Log in'],
      jsonLd: ld('Course', { name: 'Python for Complete Beginners', audience: { '@type': 'EducationalAudience', audienceType: 'complete beginners' }, provider: { '@type': 'Organization', name: 'Codeyard Academy' } }),
      main: `<section class="hero"><h1>Python for Complete Beginners</h1><p>Learn to write real programs in six weeks, one short lesson a day, with exercises checked in your browser.</p></section>
<section><h2>Who this course is for</h2><p>This course is designed for complete beginners with no programming experience.</p></section>
<section class="curriculum"><h2>What you will learn</h2><ol><li>Variables, numbers and text</li><li>Loops and conditions</li><li>Functions and modules</li><li>Reading and writing files</li><li>A final project: a budget tracker</li></ol></section>
<section><h2>Your teacher</h2><p>Sam Okafor has taught programming to more than 20,000 students at university and online.</p></section>` } },
  {
    id: 'blog-recipe-focaccia', half: 'a', categories: ['Food & Drink'], audience: [],
    page: { site: 'Flour & Fig', title: 'Overnight sourdough focaccia with rosemary - Flour & Fig', nav: BLOG_NAV, rail: BLOG_RAIL,
      main: `<article><h1>Overnight sourdough focaccia with rosemary</h1><p class="meta">Posted in Bread · 12 comments</p>
<p>This focaccia is the bread I bake most often: a wet dough, a long cold rise in the fridge and plenty of olive oil in the tin.</p>
<h2>Ingredients</h2><ul><li>500 g strong white flour</li><li>400 g water</li><li>100 g active sourdough starter</li><li>10 g salt</li><li>Olive oil and fresh rosemary</li></ul>
<h2>Method</h2><ol><li>Mix the flour, water and starter and leave for 30 minutes.</li><li>Add the salt and fold the dough four times over two hours.</li><li>Cover and leave in the fridge overnight.</li><li>Tip into an oiled tin, dimple with your fingers and bake at 230 °C for 25 minutes.</li></ol>
<p>It keeps for two days wrapped in a tea towel, and makes great sandwiches for lunch.</p></article>` } },
  {
    id: 'hotel-seaside', half: 'a', categories: ['Travel & Hospitality', 'Local Business'], audience: [],
    page: { site: 'The Harbour Light Hotel', title: 'The Harbour Light Hotel, St Ives - seafront rooms and restaurant', description: 'A family-run seafront hotel in St Ives with 18 rooms and a restaurant.', nav: ['Rooms', 'Restaurant', 'Offers', 'Gallery', 'Book now'],
      main: `<section class="hero"><h1>The Harbour Light Hotel</h1><p>A family-run hotel on the seafront at St Ives, five minutes' walk from the harbour and the beaches.</p></section>
<section><h2>Rooms</h2><p>Eighteen rooms, most with a sea view. Every room has a king-size bed, a rain shower and breakfast included.</p></section>
<section><h2>Restaurant</h2><p>Our restaurant serves local fish and Cornish produce every evening from 18:00.</p></section>
<section><h2>Getting here</h2><p>St Ives station is a ten-minute walk. Guest parking is available on request.</p><address>The Harbour Light Hotel, Wharf Road, St Ives, TR26 1LP</address></section>` } },
  {
    id: 'local-plumber', half: 'a', categories: ['Home Services', 'Local Business'], audience: ['homeowners and landlords', 'homeowners', 'landlords'],
    page: { site: 'Swift Flow Plumbing', title: 'Swift Flow Plumbing & Heating - Leeds plumbers', description: 'Gas Safe registered plumbers and heating engineers in Leeds.', nav: LOCAL_NAV,
      main: `<section class="hero"><h1>Plumbing and heating for homeowners and landlords across Leeds</h1><p>Gas Safe registered engineers, fixed prices and no call-out charge on weekdays.</p></section>
<section class="services"><h2>Services</h2><ul><li>Boiler installation and servicing</li><li>Leak detection and repair</li><li>Bathroom fitting</li><li>Landlord gas safety certificates</li></ul></section>
<section><h2>Emergency call out</h2><p>Our engineers are on call 24 hours a day for burst pipes and boiler breakdowns.</p></section>
<section><h2>Get a quote</h2><p>Call 0113 496 0999 or send us a photo of the job for a free quote.</p></section>` } },
  {
    id: 'shop-running-shoes', half: 'a', categories: ['E-commerce', 'Fashion & Beauty', 'Fitness & Sports'], audience: [],
    page: { site: 'Stride Sports', title: "Men's running shoes | Stride Sports", description: "Shop men's road and trail running shoes from leading brands.", nav: SHOP_NAV, banner: SHOP_BANNER, rail: SHOP_RAIL,
      main: `<div class="listing"><h1>Men's running shoes</h1><p class="count">48 products</p>
<div class="filters"><h2>Filter</h2><ul><li>Road</li><li>Trail</li><li>Racing</li></ul></div>
<div class="product-grid"><div class="product-card"><h3>Pacer 9 road shoe</h3><p>£110.00</p><p>4.6 stars (212 reviews)</p></div><div class="product-card"><h3>Ridgeline trail shoe</h3><p>£125.00</p><p>In stock</p></div><div class="product-card"><h3>Tempo Carbon racer</h3><p>£180.00</p><p>Sale</p></div></div>
<p>Find the right running shoe for your stride: cushioned road shoes for long miles, grippy trail shoes for mud and lightweight racers for race day. Free returns within 30 days.</p></div>` } },
  {
    id: 'blog-typescript-errors', half: 'a', categories: ['Developer Tools'], audience: [],
    page: { site: 'Bytes & Pieces', title: 'Why TypeScript says your union is not assignable - Bytes & Pieces', nav: BLOG_NAV, rail: BLOG_RAIL,
      main: `<article><h1>Why TypeScript says your union is not assignable</h1><p class="meta">March 3, 2026 · 8 min read</p>
<p>Few compiler errors are as confusing as "Type 'string' is not assignable to type '"a" | "b"'". Expect this to trip up developers who are new to literal types.</p>
<p>The cause is widening: a string literal in a mutable variable is widened to string, so the compiler no longer knows which member of the union it is.</p>
<h2>The fix</h2><p>Declare the variable with const, add an as const assertion, or annotate the variable with the union type. Each tells the compiler to keep the literal.</p>
<pre><code>const mode = 'a' as const;</code></pre>
<h2>When it still fails</h2><p>Object properties are widened too. Use satisfies on the object so its properties keep their literal types while the object is still checked.</p></article>` } },
  {
    id: 'charity-food-bank', half: 'a', categories: ['Nonprofit & Community', 'Food & Drink'], audience: [],
    page: { site: 'Eastfield Food Bank', title: 'Eastfield Food Bank - donate food or money', description: 'We give emergency food parcels to people in crisis in Eastfield.', nav: ['About', 'Get help', 'Donate', 'Volunteer', 'News'],
      main: `<section class="hero"><h1>No one in Eastfield should go hungry</h1><p>Last year we handed out 9,400 emergency food parcels with the help of 120 volunteers and local churches.</p></section>
<section><h2>Donate food</h2><p>Our most needed items this month are tinned fish, UHT milk, rice and toiletries. Drop them at any collection point or at the warehouse on Mill Lane.</p></section>
<section><h2>Donate money</h2><p>£10 buys a three-day parcel for one adult. Every donation goes to food and running the warehouse.</p></section>
<section><h2>Volunteer</h2><p>We need drivers, warehouse helpers and people to welcome visitors at our centres.</p></section>` } },
  {
    id: 'news-football-report', half: 'a', categories: ['News & Media', 'Fitness & Sports'], audience: [],
    page: { site: 'The Northgate Herald', title: 'Northgate Town 2-1 Carlow Rovers: late header sends Town top | The Northgate Herald', nav: NEWS_NAV, banner: NEWS_TICKER, rail: NEWS_RAIL,
      main: `<article><h1>Northgate Town 2-1 Carlow Rovers: late header sends Town top</h1><p class="byline">By Tom Ellery, football correspondent</p>
<p>Jonah Price headed in a stoppage-time winner as Northgate Town came from behind to beat Carlow Rovers and go top of League Two.</p>
<p>Rovers led at the break through a penalty, but the home side equalised on the hour when Luis Andrade curled in from the edge of the area.</p>
<p>"The players never stopped believing," the Town manager told reporters after the match. Promotion is now in their own hands with six games left.</p></article>` } },
  {
    id: 'saas-payroll', half: 'a', categories: ['Software / SaaS', 'HR & Recruiting', 'Finance & Banking'], audience: ['small businesses', 'small businesses with up to 50 employees'],
    page: { site: 'Paywise', title: 'Paywise - payroll made simple', description: 'Run payroll, pensions and payslips in minutes.', nav: SAAS_NAV,
      main: `<section class="hero"><h1>Payroll software made for small businesses</h1><p>Run payroll in minutes, file with the tax office automatically and give your staff payslips on their phones.</p></section>
<section class="features"><h2>Everything payroll needs</h2><div class="feature"><h3>Automatic tax filing</h3></div><div class="feature"><h3>Pension enrolment</h3></div><div class="feature"><h3>Employee self-service app</h3></div></section>
<section><h2>Who uses Paywise</h2><p>Paywise is built for small businesses with up to 50 employees: cafes, shops, agencies and clinics.</p></section>
<section><h2>Pricing</h2><p>£5 per employee per month, with a free 30-day trial.</p></section>` } },
  {
    id: 'wiki-town', half: 'a', categories: [], audience: [],
    page: { site: 'Openpedia', title: 'Harwick - Openpedia', nav: WIKI_NAV, rail: WIKI_RAIL,
      main: `<div id="content"><h1>Harwick</h1><p><b>Harwick</b> is a market town and civil parish in the north of the county, on the River Wend. At the 2021 census it had a population of 14,310.</p>
<h2>History</h2><p>Harwick is recorded in the Domesday Book as a small settlement. It received a market charter in 1227 and grew on the wool trade in the fifteenth century. The railway arrived in 1848.</p>
<h2>Geography</h2><p>The town lies in a wide valley between limestone hills. The old centre is on the north bank of the river, with newer estates to the south.</p>
<h2>Landmarks</h2><p>The parish church of St Mary dates from the twelfth century. The market hall, rebuilt in 1780, still holds a market every Thursday.</p>
<h2>Notable people</h2><ul><li>Edith Crane (1871–1950), novelist</li><li>Robert Hale (1802–1866), engineer</li></ul></div>` } },
  {
    id: 'realestate-listing', half: 'a', categories: ['Real Estate'], audience: [],
    page: { site: 'Homefinder', title: '3 bedroom terraced house for sale in Kelso Road, Leeds | Homefinder', description: '3 bed terraced house for sale, £245,000.', nav: ['Buy', 'Rent', 'Sell', 'House prices', 'Find agents'],
      main: `<div class="listing-detail"><h1>3 bedroom terraced house for sale</h1><p class="address">Kelso Road, Leeds LS2</p><p class="price">£245,000</p>
<h2>Key features</h2><ul><li>Three double bedrooms</li><li>Modern kitchen with garden access</li><li>Close to the university and city centre</li><li>No onward chain</li></ul>
<h2>Description</h2><p>A well-presented Victorian terrace with a through lounge, a fitted kitchen and a south-facing garden. The property has been rented to tenants for the last five years.</p>
<p>Marketed by Parkside Estate Agents. Call to arrange a viewing.</p></div>` } },
  {
    id: 'docs-api-reference', half: 'a', categories: ['Documentation', 'Developer Tools'], audience: [],
    page: { site: 'Parcelpost API', title: 'Create a shipment - Parcelpost API reference', nav: DOCS_NAV, rail: DOCS_RAIL,
      main: `<main><h1>Create a shipment</h1><p><code>POST /v2/shipments</code> creates a shipment and returns its label.</p>
<h2>Parameters</h2><table><tr><th>Name</th><th>Type</th><th>Description</th></tr><tr><td>to_address</td><td>object</td><td>The recipient's address.</td></tr><tr><td>weight_grams</td><td>integer</td><td>The parcel's weight, at most 30000.</td></tr><tr><td>service</td><td>string</td><td>express or standard; the default is standard.</td></tr></table>
<h2>Response</h2><p>A 201 response holds the shipment's id, its tracking number and a link to the label as a PDF.</p>
<h2>Errors</h2><p>A 422 response means a parameter is invalid; its body names the parameter.</p>
<h2>Example</h2><pre><code>curl -X POST https://api.parcelpost.example/v2/shipments -d '{"weight_grams": 1200}'</code></pre></main>` } },
  {
    id: 'news-health-report', half: 'a', categories: ['News & Media', 'Health & Medicine', 'Science & Research'], audience: [],
    page: { site: 'Bay City Chronicle', title: 'Study finds walking after meals lowers blood sugar | Bay City Chronicle', nav: NEWS_NAV, rail: NEWS_RAIL,
      main: `<article><h1>Study finds short walks after meals lower blood sugar</h1><p class="byline">By Dana Whitfield, health reporter</p>
<p>A ten-minute walk after eating cuts the rise in blood sugar by almost a fifth, according to a study published on Monday.</p>
<p>The research, carried out by a team at Northeastern University for the Boston-based organization, followed 900 adults for a year.</p>
<p>"Small habits add up," said Dr. Helen Marsh, who led the study. She said the effect was strongest in patients with type 2 diabetes.</p>
<p>Health officials said the findings supported existing advice to stay active throughout the day.</p></article>` } },
  {
    id: 'insurance-pets', half: 'a', categories: ['Insurance'], audience: ['dog and cat owners', 'dog owners', 'cat owners'],
    page: { site: 'Pawsure', title: 'Pawsure pet insurance - lifetime cover for dogs and cats', description: 'Lifetime pet insurance with vet fees cover up to £12,000 a year.', nav: ['Dog insurance', 'Cat insurance', 'Make a claim', 'Help', 'Log in'],
      main: `<section class="hero"><h1>Pet insurance for dog and cat owners</h1><p>Lifetime cover that renews every year, so ongoing conditions stay covered.</p><a href="/quote">Get a quote</a></section>
<section class="benefits"><h2>What's included</h2><ul><li>Vet fees up to £12,000 a year</li><li>24/7 video vet calls</li><li>Cover for dental illness</li><li>Claims paid directly to your vet</li></ul></section>
<section><h2>How claims work</h2><p>Submit a claim online with your vet's invoice. Most claims are paid within five working days.</p></section>` } },

  // ------------------------------------------------------------------------------- half b
  {
    id: 'saas-project-management', half: 'b', categories: ['Software / SaaS', 'Productivity & Collaboration'], audience: ['remote teams', 'remote teams across time zones'],
    page: { site: 'Trellis', title: 'Trellis - project management for remote teams', description: 'Plan projects, share updates and ship on time.', nav: SAAS_NAV,
      main: `<section class="hero"><h1>Project management built for remote teams</h1><p>Trellis keeps tasks, docs and decisions in one place so that people across time zones know what to do next without another meeting.</p></section>
<section class="features"><h2>Features</h2><ul><li>Boards, lists and timelines</li><li>Async video updates</li><li>Time zone aware deadlines</li><li>Integrations with Slack and GitHub</li></ul></section>
<section><h2>Pricing</h2><p>Free for up to 10 users. The Business plan is $8 per user per month.</p></section>` } },
  {
    id: 'product-laptop-backpack', half: 'b', categories: ['E-commerce', 'Fashion & Beauty', 'Consumer Electronics'], audience: [],
    page: { site: 'Carryall', title: 'Metro 20L laptop backpack - Carryall', description: 'Water-resistant 20 litre backpack with a padded 16-inch laptop sleeve.', nav: SHOP_NAV, banner: SHOP_BANNER, rail: SHOP_RAIL,
      main: `<div class="product"><h1>Metro 20L Laptop Backpack</h1><p class="price">£74.00</p><p>In stock. Order within 3 hours for next-day delivery.</p><button>Add to basket</button>
<h2>Features</h2><ul><li>Padded sleeve for laptops up to 16 inches</li><li>Water-resistant recycled fabric</li><li>Hidden passport pocket</li><li>Luggage strap for trolley cases</li></ul>
<p>A slim backpack that fits under an airline seat and still holds a day's kit. Two-year warranty.</p>
<h2>Reviews</h2><p>Survived a month of rain in Glasgow and my laptop stayed dry. Verified buyer.</p></div>` } },
  {
    id: 'news-election', half: 'b', categories: ['News & Media', 'Government & Politics'], audience: [],
    page: { site: 'Bay City Chronicle', title: 'Mayor concedes as challenger wins by 812 votes | Bay City Chronicle', nav: NEWS_NAV, banner: NEWS_TICKER, rail: NEWS_RAIL,
      main: `<article><h1>Mayor concedes as challenger wins by 812 votes</h1><p class="byline">By Marcus Lee, political correspondent</p>
<p>Bay City's mayor conceded defeat on Wednesday after a recount confirmed that challenger Rosa Delgado had won the election by 812 votes.</p>
<p>Delgado, a former city councillor, campaigned on housing and public transport. Turnout was 41%, the highest in two decades.</p>
<p>"This city voted for change," Delgado told supporters outside city hall. She will be sworn in next month.</p></article>` } },
  {
    id: 'wiki-linear-regression', half: 'b', categories: ['Science & Research', 'Analytics & Data'], audience: [],
    page: { site: 'Openpedia', title: 'Linear regression - Openpedia', nav: WIKI_NAV, rail: WIKI_RAIL,
      main: `<div id="content"><h1>Linear regression</h1><p>In statistics, <b>linear regression</b> is a model that estimates the linear relationship between a dependent variable and one or more explanatory variables.</p>
<h2>History</h2><p>The method of least squares was published by Legendre in 1805 and by Gauss in 1809, who used it to predict the orbits of planets. Francis Galton later used the term regression for the tendency of children's heights to move towards the average.</p>
<h2>Estimation</h2><p>Ordinary least squares chooses the coefficients that minimise the sum of squared residuals. Other methods include weighted least squares and ridge regression.</p>
<h2>Applications</h2><p>Linear regression is used in economics to relate consumption to income, in epidemiology to relate smoking to mortality, and in finance to estimate the risk of an investment.</p>
<h2>See also</h2><ul><li><a href="/w/logistic">Logistic regression</a></li><li><a href="/w/ols">Ordinary least squares</a></li></ul></div>` } },
  {
    id: 'docs-sdk-getting-started', half: 'b', categories: ['Documentation', 'Developer Tools'], audience: ['developers who are new to the sdk', 'developers who are new to the Lumen SDK', 'developers'],
    page: { site: 'Lumen Docs', title: 'Getting started with the Lumen SDK | Lumen Docs', nav: DOCS_NAV, rail: DOCS_RAIL,
      main: `<main><h1>Getting started with the Lumen SDK</h1><p>This guide is for developers who are new to the Lumen SDK. In ten minutes you will install it, authenticate and send your first event.</p>
<h2>Install</h2><pre><code>pip install lumen-sdk</code></pre>
<h2>Authenticate</h2><p>Create an API key in the dashboard and set it as the <code>LUMEN_API_KEY</code> environment variable. The client reads it by default.</p>
<h2>Send an event</h2><pre><code>client.track("signup", user_id="42")</code></pre><p>Events appear in the dashboard within a few seconds.</p>
<h2>Next steps</h2><p>Read the configuration reference for batching and retry options.</p></main>` } },
  {
    id: 'local-cafe', half: 'b', categories: ['Local Business', 'Food & Drink'], audience: [],
    page: { site: 'The Copper Kettle', title: 'The Copper Kettle - café and bakery in Otley', description: 'Breakfast, lunch and homemade cakes in the heart of Otley.', nav: LOCAL_NAV,
      main: `<section class="hero"><h1>The Copper Kettle</h1><p>A small café in the heart of Otley serving breakfast, lunch and homemade cakes since 2009.</p></section>
<section class="menu"><h2>Menu</h2><ul><li>Full Yorkshire breakfast</li><li>Soup of the day with fresh bread</li><li>Homemade scones with jam and cream</li><li>Coffee from a local roaster</li></ul></section>
<section><h2>Opening hours</h2><p>Tuesday to Saturday 8:00 to 16:00, Sunday 9:00 to 14:00. Closed on Mondays.</p></section>
<section><h2>Visit us</h2><address>3 Kirkgate, Otley, LS21 3HN</address><p>Dogs welcome. No bookings needed.</p></section>` } },
  {
    id: 'forum-car-noise', half: 'b', categories: ['Automotive'], audience: [],
    page: { site: 'MotorHub Forums', title: 'Grinding noise when braking at low speed - 2016 hatchback | MotorHub', nav: FORUM_NAV, rail: FORUM_RAIL,
      main: `<div class="thread"><h1>Grinding noise when braking at low speed</h1>
<div class="post"><p class="author">roadrunner77</p><p>My 2016 hatchback makes a grinding noise from the front left wheel when I brake gently below 20 mph. It went through its MOT in June with no advisories. Any ideas before I take it to a garage?</p></div>
<div class="post"><p class="author">spannerman</p><p>Most likely the pads are worn down to the wear indicator, or a stone is stuck behind the disc shield. Jack the car up and take the wheel off to check.</p></div>
<div class="post"><p class="author">roadrunner77</p><p>Update: it was a stone behind the shield. Ten minutes to fix. Thanks all.</p></div></div>` } },
  {
    id: 'saas-email-marketing', half: 'b', categories: ['Software / SaaS', 'Marketing & Advertising', 'Communication', 'E-commerce'], audience: ['online stores', 'online stores and direct-to-consumer brands'],
    page: { site: 'Sendfox Mail', title: 'Email marketing for online stores | Sendfox Mail', description: 'Automated email campaigns that turn browsers into buyers.', nav: SAAS_NAV,
      main: `<section class="hero"><h1>Email marketing for online stores and direct-to-consumer brands</h1><p>Send abandoned cart emails, product recommendations and newsletters that bring shoppers back to your store.</p></section>
<section class="features"><h2>Features</h2><div class="card"><h3>Abandoned cart flows</h3></div><div class="card"><h3>Drag-and-drop email editor</h3></div><div class="card"><h3>Revenue per campaign reports</h3></div><div class="card"><h3>Shopify and WooCommerce integrations</h3></div></section>
<section><h2>Pricing</h2><p>Free up to 500 contacts. Paid plans start at $15 per month.</p></section>` } },
  {
    id: 'university-msc', half: 'b', categories: ['Education', 'Analytics & Data', 'AI & Machine Learning'], audience: ['graduates in mathematics, computer science or engineering', 'graduates'],
    page: { site: 'University of Wexham', title: 'MSc Data Science | University of Wexham', description: 'A one-year MSc in data science, machine learning and statistics.', nav: ['Study', 'Research', 'International', 'About', 'Apply'],
      main: `<section class="hero"><h1>MSc Data Science</h1><p>A one-year master's degree in statistics, machine learning and the engineering of data systems, taught with industry partners.</p></section>
<section><h2>Entry requirements</h2><p>The programme is designed for graduates in mathematics, computer science or engineering with at least a 2:1 degree.</p></section>
<section><h2>Modules</h2><ul><li>Statistical learning</li><li>Deep learning and neural networks</li><li>Data engineering at scale</li><li>Research project</li></ul></section>
<section><h2>Fees</h2><p>UK students: £12,500. International students: £26,000.</p></section>` } },
  {
    id: 'blog-travel-lisbon', half: 'b', categories: ['Travel & Hospitality'], audience: [],
    page: { site: 'Wander Notes', title: 'Three days in Lisbon: trams, tiles and pastéis de nata - Wander Notes', nav: BLOG_NAV, rail: BLOG_RAIL,
      main: `<article><h1>Three days in Lisbon: trams, tiles and pastéis de nata</h1><p class="meta">Travel · Portugal</p>
<p>Lisbon is a city of hills, so the first thing to do is buy a 24-hour transport pass and ride the number 28 tram from Martim Moniz before the crowds arrive.</p>
<h2>Day one: Alfama</h2><p>Get lost in the old quarter, climb to the castle for the view and stay for fado in a small restaurant in the evening.</p>
<h2>Day two: Belém</h2><p>Visit the monastery early, queue for custard tarts at the famous bakery and walk along the river to the tower.</p>
<h2>Day three: Sintra</h2><p>Take the train to Sintra for the palaces and gardens. Book tickets online to skip the queues.</p>
<h2>Where we stayed</h2><p>We booked a small guesthouse in Príncipe Real, a quiet neighbourhood with good cafés.</p></article>` } },
  {
    id: 'local-law-firm', half: 'b', categories: ['Legal', 'Local Business'], audience: [],
    page: { site: 'Hartley & Shaw Solicitors', title: 'Hartley & Shaw Solicitors, Harrogate', description: 'Conveyancing, wills and family law in Harrogate.', nav: LOCAL_NAV,
      main: `<section class="hero"><h1>Hartley &amp; Shaw Solicitors</h1><p>Straightforward legal advice from a Harrogate law firm with more than forty years of experience.</p></section>
<section class="services"><h2>Our services</h2><ul><li>Residential conveyancing</li><li>Wills and lasting powers of attorney</li><li>Divorce and family law</li><li>Employment disputes</li></ul></section>
<section><h2>Fees</h2><p>Fixed fees for conveyancing and wills. Your first 30-minute consultation is free.</p></section>
<section><h2>Contact</h2><address>22 Victoria Avenue, Harrogate, HG1 1EL</address><p>Open Monday to Friday 9:00 to 17:00. Appointments outside these hours on request.</p></section>` } },
  {
    id: 'gym-landing', half: 'b', categories: ['Fitness & Sports', 'Local Business'], audience: [],
    page: { site: 'Forge Fitness', title: 'Forge Fitness - gym and classes in Headingley', description: 'A 24-hour gym with strength, cycling and yoga classes.', nav: ['Memberships', 'Classes', 'Timetable', 'Personal training', 'Join'],
      main: `<section class="hero"><h1>Forge Fitness Headingley</h1><p>A 24-hour gym with free weights, racks, a cycling studio and more than 60 classes a week.</p></section>
<section class="features"><h2>Why join Forge</h2><ul><li>Open 24 hours, 365 days a year</li><li>Ten squat racks and lifting platforms</li><li>Yoga, spin and circuits classes included</li><li>No joining fee this month</li></ul></section>
<section><h2>Memberships</h2><p>Monthly membership costs £29.99 with no contract. Off-peak membership costs £21.99.</p></section>
<section><h2>Find us</h2><p>Above the supermarket on Otley Road, with free parking for members.</p></section>` } },
  {
    id: 'shop-cookware-listing', half: 'b', categories: ['E-commerce', 'Home & Garden'], audience: [],
    page: { site: 'Kitchen Republic', title: 'Frying pans and skillets | Kitchen Republic', description: 'Non-stick, stainless steel and cast iron frying pans.', nav: SHOP_NAV, banner: SHOP_BANNER, rail: SHOP_RAIL,
      main: `<div class="listing"><h1>Frying pans and skillets</h1><p>32 products</p>
<div class="product-grid"><div class="product-card"><h3>Everyday non-stick frying pan 28 cm</h3><p>£34.00</p></div><div class="product-card"><h3>Tri-ply stainless steel skillet 24 cm</h3><p>£59.00</p></div><div class="product-card"><h3>Cast iron skillet 26 cm</h3><p>£44.95</p></div></div>
<p>Every pan in this range works on induction hobs and goes in the oven. Free delivery over £50 and a lifetime guarantee on cast iron.</p></div>` } },
  {
    id: 'wiki-photosynthesis', half: 'b', categories: ['Science & Research', 'Environment & Energy'], audience: [],
    page: { site: 'Openpedia', title: 'Photosynthesis - Openpedia', nav: WIKI_NAV, rail: WIKI_RAIL,
      main: `<div id="content"><h1>Photosynthesis</h1><p><b>Photosynthesis</b> is the process by which plants, algae and some bacteria convert light energy into chemical energy stored in sugars, releasing oxygen.</p>
<h2>Overview</h2><p>Most photosynthesis takes place in the chloroplasts of leaf cells, where chlorophyll absorbs red and blue light. Carbon dioxide and water are turned into glucose.</p>
<h2>Light-dependent reactions</h2><p>In the thylakoid membranes, light splits water molecules, producing oxygen and the energy carriers ATP and NADPH.</p>
<h2>Calvin cycle</h2><p>In the stroma, the enzyme RuBisCO fixes carbon dioxide into organic molecules using the energy from the light reactions.</p>
<h2>Importance</h2><p>Photosynthesis supplies the oxygen of the atmosphere and most of the energy that life on Earth depends on. It also removes carbon dioxide, which links it to the climate.</p></div>` } },
  {
    id: 'news-ai-funding', half: 'b', categories: ['News & Media', 'AI & Machine Learning', 'Finance & Banking', 'Health & Medicine'], audience: [],
    page: { site: 'The Northgate Herald', title: 'Leeds AI start-up raises £20m to read hospital scans | The Northgate Herald', nav: NEWS_NAV, banner: NEWS_TICKER, rail: NEWS_RAIL,
      main: `<article><h1>Leeds AI start-up raises £20m to read hospital scans</h1><p class="byline">By Aisha Karim, technology correspondent</p>
<p>A Leeds company whose software uses machine learning to spot fractures on X-rays has raised £20 million from investors.</p>
<p>Scanwise said it would use the money to hire 60 staff and expand into Germany. Its AI model has been trained on four million images.</p>
<p>"Our tool is built for hospital radiologists who are drowning in scans," said the chief executive, Dr. Owen Pryce.</p>
<p>The investment round was led by a London venture capital fund.</p></article>` } },
  {
    id: 'saas-password-manager', half: 'b', categories: ['Software / SaaS', 'Security & Privacy'], audience: ['families', 'families who share accounts'],
    page: { site: 'Keyring', title: 'Keyring - the password manager for families', description: 'Store and share passwords securely with end-to-end encryption.', nav: SAAS_NAV,
      main: `<section class="hero"><h1>The password manager for families</h1><p>Keep every login, card and document safe, and share the Netflix password without texting it around.</p></section>
<section class="features"><h2>Key features</h2><ul><li>End-to-end encryption</li><li>Shared family vaults</li><li>Breach alerts for your accounts</li><li>Emergency access for trusted contacts</li></ul></section>
<section><h2>Plans</h2><p>Family plan: $4.99 per month for up to six people. Free 30-day trial.</p></section>` } },
  {
    id: 'docs-config-reference', half: 'b', categories: ['Documentation', 'Infrastructure & DevOps', 'Developer Tools'], audience: [],
    page: { site: 'Harbor Proxy Docs', title: 'Configuration reference - Harbor Proxy', nav: DOCS_NAV, rail: DOCS_RAIL,
      main: `<main><h1>Configuration reference</h1><p>Harbor Proxy reads a YAML file at start-up. Every option has a default, so an empty file runs a proxy on port 8080.</p>
<h2>listen</h2><p>The address and port to listen on. Default: <code>0.0.0.0:8080</code>.</p>
<h2>upstreams</h2><p>A list of servers to forward requests to, with their weights and health checks.</p>
<h2>timeouts</h2><p>Connect, read and idle timeouts in seconds. The defaults are 5, 30 and 90.</p>
<h2>tls</h2><p>Certificate and key paths. With <code>acme: true</code>, certificates are requested and renewed automatically.</p></main>` } },
  {
    id: 'recipe-weeknight-curry', half: 'b', categories: ['Food & Drink'], audience: [],
    page: { site: 'Pan & Plate', title: '20-minute chickpea and spinach curry - Pan & Plate', nav: BLOG_NAV, rail: BLOG_RAIL,
      jsonLd: ld('Recipe', { name: '20-minute chickpea and spinach curry', recipeYield: '4 servings', totalTime: 'PT20M' }),
      main: `<article><h1>20-minute chickpea and spinach curry</h1><p>This curry is perfect for busy weeknights: one pan, store-cupboard ingredients and dinner on the table in twenty minutes.</p>
<h2>Ingredients</h2><ul><li>1 onion, chopped</li><li>2 tbsp curry paste</li><li>400 g tin of chickpeas</li><li>400 ml coconut milk</li><li>200 g spinach</li></ul>
<h2>Method</h2><ol><li>Fry the onion for five minutes.</li><li>Stir in the curry paste, then the chickpeas and coconut milk.</li><li>Simmer for ten minutes, add the spinach and serve with rice.</li></ol></article>` } },
  {
    id: 'charity-befriending', half: 'b', categories: ['Nonprofit & Community'], audience: ['students and retirees', 'students and retirees with a few hours a week', 'older people living alone'],
    page: { site: 'Good Neighbours Wexham', title: 'Volunteer as a befriender - Good Neighbours Wexham', description: 'Visit an older neighbour for an hour a week.', nav: ['About', 'Get support', 'Volunteer', 'Donate', 'Contact'],
      main: `<section class="hero"><h1>Become a befriender</h1><p>Spend an hour a week with an older person in Wexham who lives alone, for a chat, a walk or a cup of tea.</p></section>
<section><h2>Who can volunteer</h2><p>Our befriending scheme is ideal for students and retirees with a few hours a week to spare. We provide training and a DBS check.</p></section>
<section><h2>Why it matters</h2><p>One in three older people in Wexham say they go a whole week without a conversation. A regular visit makes a real difference.</p></section>
<section><h2>Donate</h2><p>£25 covers the training of one new volunteer. Our charity relies on donations.</p></section>` } },
  {
    id: 'events-concert-listing', half: 'b', categories: ['Entertainment & Culture'], audience: [],
    page: { site: 'The Old Chapel', title: "What's on at The Old Chapel - live music and comedy", description: 'Concerts, comedy and film nights in a converted chapel.', nav: ["What's on", 'Venue hire', 'Food & drink', 'Visit', 'Tickets'],
      main: `<section class="hero"><h1>What's on</h1><p>Live music, comedy and film nights in a converted Victorian chapel with room for 300.</p></section>
<div class="events"><div class="event"><h3>The Marlow Quartet: Beethoven and Bartók</h3><p>Friday 6 March, 19:30. Tickets £18.</p></div><div class="event"><h3>Late-night comedy club</h3><p>Saturday 7 March, 21:00. Tickets £12.</p></div><div class="event"><h3>Folk session in the bar</h3><p>Sunday 8 March, 16:00. Free entry.</p></div></div>
<p>Doors open an hour before each concert. The bar serves local beer and wine.</p>` } },
  {
    id: 'forum-mortgage', half: 'b', categories: ['Finance & Banking', 'Real Estate'], audience: [],
    page: { site: 'MoneyTalk Forums', title: 'Fix for two or five years on a remortgage? | MoneyTalk', nav: FORUM_NAV, rail: FORUM_RAIL,
      main: `<div class="thread"><h1>Fix for two or five years on a remortgage?</h1>
<div class="post"><p class="author">firsttimer22</p><p>Our two-year fixed mortgage ends in May. The bank offers 4.4% for two years or 4.1% for five years on the remaining £180,000. We might move house in three years. Which would you take?</p></div>
<div class="post"><p class="author">sensible_saver</p><p>If you might move, check whether the five-year deal is portable and what the early repayment charges are. They can be 3-5% of the loan in the first years.</p></div>
<div class="post"><p class="author">brokerbob</p><p>A broker can compare the whole market. The difference in monthly payments is about £30 on that balance.</p></div></div>` } },
  {
    id: 'product-kids-helmet', half: 'b', categories: ['E-commerce', 'Fitness & Sports'], audience: ['children aged 5-10', 'children', 'kids aged 5 to 10', 'kids'],
    page: { site: 'Spokes & Co', title: 'Zoomi kids bike helmet - Spokes & Co', description: 'A light, adjustable bike helmet with a rear light.', nav: SHOP_NAV, banner: SHOP_BANNER, rail: SHOP_RAIL,
      jsonLd: ld('Product', { name: 'Zoomi Kids Bike Helmet', audience: { '@type': 'PeopleAudience', audienceType: 'children aged 5-10' }, offers: { '@type': 'Offer', price: '29.99', priceCurrency: 'GBP' } }),
      main: `<div class="product"><h1>Zoomi Kids Bike Helmet</h1><p class="price">£29.99</p><p>In stock</p><button>Add to basket</button>
<h2>Features</h2><ul><li>Dial fit adjusts from 50 to 56 cm</li><li>Built-in rear LED light</li><li>Magnetic buckle that does not pinch</li><li>Meets EN 1078 safety standard</li></ul>
<p>A light helmet with plenty of vents and bright colours. Sized for kids aged 5 to 10.</p>
<h2>Delivery</h2><p>Free returns within 30 days.</p></div>` } },
];

/** The labelled pages, each with its HTML and URL. */
export function analysisFixtures(): AnalysisFixture[] {
  return PAGES.map(({ page, ...rest }) => ({
    ...rest,
    url: `https://${rest.id}.example.com/`,
    html: html(page),
  }));
}
