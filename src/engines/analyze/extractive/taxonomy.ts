/**
 * The categories the extractive analyzer chooses from (docs/analyze-extractive.md prints them; the
 * OpenAI-compatible analyzer's prompt names them). A `type` says what kind of site or page it is, a
 * `topic` what it is about; a page gets at most one type and then topics.
 */
export interface TaxonomyEntry {
  readonly name: string;
  readonly kind: 'type' | 'topic';
  /**
   * Keywords (one or two words, matched after the same suffix stripping as the page's words) with
   * their weights: 3 for a word that nearly decides the category, 2 for a strong hint, 1 for a weak one.
   */
  readonly keywords: Readonly<Record<string, 1 | 2 | 3>>;
}

// biome-ignore format: one row per category keeps the table readable
export const CATEGORY_TAXONOMY = [
  { name: 'Software / SaaS', kind: 'type', keywords: { saas: 3, software: 2, platform: 1, dashboard: 1, integration: 1, 'free trial': 3, 'free plan': 3, 'paid plan': 3, 'per month': 2, pricing: 1, 'sign up': 1, 'sign in': 1, plan: 1, subscription: 2, cloud: 1, app: 1, workflow: 1, 'credit card': 1, automate: 1, monitor: 1, account: 1 } },
  { name: 'Developer Tools', kind: 'topic', keywords: { developer: 2, api: 2, sdk: 3, cli: 3, github: 2, code: 1, 'open source': 2, library: 1, npm: 3, debug: 2, deploy: 1, client: 1, request: 1, endpoint: 2, microservice: 2, cron: 2, programming: 3, javascript: 3, typescript: 3, python: 2, compiler: 3 } },
  { name: 'Documentation', kind: 'type', keywords: { documentation: 3, docs: 2, guide: 1, reference: 1, tutorial: 2, configure: 2, configuration: 2, option: 1, default: 1, parameter: 2, install: 1, installation: 2, 'getting started': 2, example: 1, quickstart: 3 } },
  { name: 'E-commerce', kind: 'type', keywords: { cart: 3, basket: 3, checkout: 2, 'add to': 1, shipping: 2, delivery: 1, 'in stock': 3, dispatch: 2, return: 1, refund: 2, shop: 2, store: 1, buy: 2, order: 1, sale: 1, review: 1, 'verified buyer': 3, product: 1, warranty: 2, guarantee: 1 } },
  { name: 'News & Media', kind: 'type', keywords: { news: 2, said: 1, told: 1, according: 1, spokesperson: 2, correspondent: 3, reporter: 3, editor: 1, breaking: 2, herald: 3, gazette: 3, tribune: 3, courier: 2, chronicle: 2, journalist: 2, newsroom: 3, headline: 1 } },
  { name: 'Government & Politics', kind: 'topic', keywords: { council: 2, councillor: 3, government: 2, minister: 2, parliament: 3, election: 2, mayor: 2, vote: 1, policy: 1, cabinet: 2, opposition: 2, authority: 1, public: 1, law: 1 } },
  { name: 'Local Business', kind: 'type', keywords: { 'opening hours': 3, 'visit us': 3, 'find us': 3, 'get in touch': 1, address: 1, directions: 2, parking: 2, 'family run': 3, local: 1, neighbour: 2, neighbor: 2, monday: 1, saturday: 1, sunday: 1, walk: 1, 'pop in': 2, shop: 1, appointment: 2 } },
  { name: 'Food & Drink', kind: 'topic', keywords: { bakery: 3, bread: 2, loaf: 2, sourdough: 3, cake: 2, pastry: 2, croissant: 3, restaurant: 3, menu: 1, cafe: 2, 'café': 2, coffee: 2, tea: 1, food: 2, recipe: 2, cook: 1, dinner: 2, lunch: 2, breakfast: 2, wine: 2, beer: 2, bake: 2, kitchen: 1, chef: 2 } },
  { name: 'Health & Medicine', kind: 'topic', keywords: { health: 2, medical: 3, doctor: 2, clinic: 3, patient: 3, treatment: 2, symptom: 3, hospital: 3, therapy: 2, nurse: 3, dental: 3, wellness: 2, medicine: 3, care: 1 } },
  { name: 'Fitness & Sports', kind: 'topic', keywords: { fitness: 3, gym: 3, workout: 3, training: 1, sport: 2, football: 3, match: 1, league: 2, athlete: 3, running: 1, yoga: 3, promotion: 1 } },
  { name: 'Finance & Banking', kind: 'topic', keywords: { finance: 3, financial: 2, bank: 3, banking: 3, loan: 3, mortgage: 2, credit: 1, invest: 2, investment: 2, tax: 2, accounting: 3, payment: 1, fintech: 3, budget: 1, borrow: 1, savings: 2 } },
  { name: 'Insurance', kind: 'topic', keywords: { insurance: 3, insurer: 3, premium: 1, claim: 1, cover: 1, policyholder: 3 } },
  { name: 'Education', kind: 'topic', keywords: { education: 3, course: 2, learn: 2, learning: 2, student: 3, school: 2, university: 3, teacher: 3, class: 1, curriculum: 3, lesson: 2, degree: 2, workshop: 1 } },
  { name: 'Travel & Hospitality', kind: 'topic', keywords: { travel: 3, hotel: 3, flight: 3, booking: 1, trip: 2, destination: 2, vacation: 3, holiday: 2, tour: 2, resort: 3, guest: 1, room: 1 } },
  { name: 'Real Estate', kind: 'topic', keywords: { 'real estate': 3, property: 2, apartment: 3, rent: 2, 'for sale': 2, bedroom: 3, landlord: 3, tenant: 3, listing: 1, estate: 1, homes: 1 } },
  { name: 'Marketing & Advertising', kind: 'topic', keywords: { marketing: 3, seo: 3, campaign: 2, advertising: 3, ads: 1, brand: 1, lead: 1, conversion: 2, audience: 1, 'social media': 2, newsletter: 1 } },
  { name: 'Analytics & Data', kind: 'topic', keywords: { analytics: 3, data: 1, metric: 2, dashboard: 2, report: 1, insight: 2, tracking: 2, funnel: 3, cohort: 3, visualization: 3, sql: 2, events: 1, statistics: 2, statistical: 2, regression: 3 } },
  { name: 'Security & Privacy', kind: 'topic', keywords: { security: 2, secure: 1, privacy: 2, encryption: 3, compliance: 2, gdpr: 2, vulnerability: 3, authentication: 2, password: 2, threat: 2, 'single sign': 1, audit: 1 } },
  { name: 'AI & Machine Learning', kind: 'topic', keywords: { ai: 3, 'machine learning': 3, model: 1, llm: 3, neural: 3, gpt: 3, 'artificial intelligence': 3, inference: 2, chatbot: 2 } },
  { name: 'Infrastructure & DevOps', kind: 'topic', keywords: { uptime: 3, monitoring: 2, outage: 3, incident: 2, 'on call': 3, devops: 3, server: 2, hosting: 3, kubernetes: 3, latency: 2, 'status page': 3, infrastructure: 3, backup: 1, alert: 1, retry: 1, timeout: 1 } },
  { name: 'Productivity & Collaboration', kind: 'topic', keywords: { productivity: 3, collaboration: 3, 'project management': 3, task: 2, calendar: 2, workspace: 2, meeting: 1, notes: 1, team: 1 } },
  { name: 'Communication', kind: 'topic', keywords: { chat: 2, messaging: 3, inbox: 2, email: 1, 'video call': 3, sms: 1, notification: 1 } },
  { name: 'Design & Creative', kind: 'topic', keywords: { design: 2, designer: 3, figma: 3, creative: 2, illustration: 3, font: 2, photography: 3, template: 1 } },
  { name: 'HR & Recruiting', kind: 'topic', keywords: { hiring: 3, recruiting: 3, recruitment: 3, candidate: 2, payroll: 3, employee: 2, hr: 3, careers: 1, jobs: 1 } },
  { name: 'Legal', kind: 'topic', keywords: { legal: 2, lawyer: 3, attorney: 3, solicitor: 3, 'law firm': 3, contract: 1, litigation: 3 } },
  { name: 'Home & Garden', kind: 'topic', keywords: { home: 1, garden: 3, kitchen: 2, cookware: 3, furniture: 3, decor: 3, hob: 2, oven: 2, skillet: 3, pan: 2, cleaning: 1, diy: 3, gardening: 3, gardener: 3 } },
  { name: 'Home Services', kind: 'topic', keywords: { plumber: 3, plumbing: 3, electrician: 3, boiler: 3, heating: 2, repair: 2, handyman: 3, roofing: 3, 'call out': 3, emergency: 1, quote: 1, installer: 2 } },
  { name: 'Fashion & Beauty', kind: 'topic', keywords: { fashion: 3, clothing: 3, dress: 2, shoes: 2, apparel: 3, beauty: 3, skincare: 3, cosmetics: 3, jewellery: 3, jewelry: 3, size: 1 } },
  { name: 'Consumer Electronics', kind: 'topic', keywords: { headphones: 3, laptop: 3, smartphone: 3, battery: 2, bluetooth: 3, camera: 2, wireless: 2, charger: 3, tv: 2, speaker: 2 } },
  { name: 'Entertainment & Culture', kind: 'topic', keywords: { music: 3, movie: 3, film: 2, game: 2, gaming: 3, streaming: 2, podcast: 2, concert: 3, festival: 2, tickets: 2, theatre: 3, exhibition: 1 } },
  { name: 'Automotive', kind: 'topic', keywords: { car: 2, vehicle: 3, automotive: 3, dealer: 2, tyre: 3, tire: 3, engine: 1, driving: 1, mot: 3 } },
  { name: 'Transport & Logistics', kind: 'topic', keywords: { transport: 3, tram: 3, bus: 2, train: 2, rail: 3, logistics: 3, freight: 3, passenger: 3, route: 1, commuter: 3, stop: 1 } },
  { name: 'Nonprofit & Community', kind: 'topic', keywords: { donate: 3, donation: 3, charity: 3, volunteer: 3, nonprofit: 3, community: 1, foundation: 1, fundraising: 3 } },
  { name: 'Science & Research', kind: 'topic', keywords: { research: 2, study: 1, scientist: 3, journal: 1, laboratory: 3, experiment: 3, researcher: 3, peer: 1, scientific: 3, hypothesis: 3, statistics: 2, statistical: 2 } },
  { name: 'Environment & Energy', kind: 'topic', keywords: { climate: 3, energy: 2, solar: 3, renewable: 3, emission: 3, environment: 2, carbon: 2, sustainability: 3, flood: 2 } },
] as const satisfies readonly TaxonomyEntry[];
