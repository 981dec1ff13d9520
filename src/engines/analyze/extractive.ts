import type { OutlineEntry, PageDigest } from './page-digest.js';

/**
 * The deterministic, offline analyzer: every field is picked or lifted from the page's own text
 * (docs/analyze-extractive.md describes each method, the taxonomy and the limits). Same digest in,
 * same answer out; work is linear in the digest, which is itself capped.
 */

/** The fixed fields of the spec's Analysis result that an analyzer writes (contact signals are found elsewhere). */
export interface AnalysisFields {
  summary: string;
  valueProposition: string;
  keyFeatures: string[];
  categories: string[];
  useCases: string[];
  targetAudience: string;
}

/** Caps on what the extractive analyzer returns and reads. */
export const EXTRACTIVE_LIMITS = Object.freeze({
  summaryChars: 600,
  summarySentences: 3,
  // Sentences of the main text considered for the summary.
  sentences: 400,
  valuePropositionChars: 400,
  keyFeatures: 8,
  featureChars: 140,
  categories: 3,
  useCases: 5,
  useCaseWords: 20,
  audienceWords: 20,
  customChars: 500,
});

// ---------------------------------------------------------------------------------------------
// Words

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

// English function words and page chrome; the analyzer's keyword methods are English-only anyway.
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have having ' +
    'he her here hers herself him himself his how i if in into is it its itself just let me more most my myself ' +
    'no nor not now of off on once only or other our ours ourselves out over own same she should so some such ' +
    'than that the their theirs them themselves then there these they this those through to too under until up ' +
    'very was we were what when where which while who whom why will with would you your yours yourself ' +
    "yourselves it's you're we're they're don't can't won't isn't one two get got may might must per via use used " +
    'using like new every many much well way make makes made within without even still yet'
  ).split(' '),
);

/** A light suffix stripper: enough for "pricing" to meet "price" and "hours" to meet "hour". */
function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  for (const suffix of ['ing', 'ed', 'es', 's', 'e']) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      if (suffix === 's' && word.endsWith('ss')) return word;
      return word.slice(0, -suffix.length);
    }
  }
  return word;
}

function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

/** Stems of the content words of `text`: no stop words, no bare numbers, no single letters. */
function contentStems(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (w.length < 2 || STOP_WORDS.has(w) || /^\p{N}+$/u.test(w)) continue;
    out.push(stem(w));
  }
  return out;
}

function capitalize(text: string): string {
  return text === '' ? text : text.charAt(0).toUpperCase() + text.slice(1);
}

function capChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:]+$/, '')}…`;
}

// ---------------------------------------------------------------------------------------------
// Sentences

// Abbreviations after which a period does not end a sentence even before a capital ("Dr. Lindqvist").
const ABBREVIATIONS: ReadonlySet<string> = new Set([
  'e.g',
  'i.e',
  'cf',
  'dr',
  'mr',
  'mrs',
  'ms',
  'prof',
  'st',
  'vs',
  'no',
  'fig',
  'inc',
  'ltd',
  'jr',
  'sr',
  'mt',
  'approx',
  'u.s',
  'u.k',
]);
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']']);

function isSentenceStart(ch: string): boolean {
  return /[\p{Lu}\p{N}"'“‘(]/u.test(ch);
}

/**
 * Sentences of `text` in order: each line is split at . ! ? followed by a space and a capital, a
 * digit or a quote, except after an abbreviation or an initial. One pass per line, no regex over it.
 */
export function splitSentences(text: string, maxSentences: number): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    let start = 0;
    for (let i = 0; i < line.length && out.length < maxSentences; i++) {
      const ch = line[i] as string;
      if (ch !== '.' && ch !== '!' && ch !== '?') continue;
      let end = i + 1;
      while (end < line.length && CLOSERS.has(line[end] as string)) end++;
      if (end >= line.length || line[end] !== ' ') continue;
      let next = end;
      while (next < line.length && line[next] === ' ') next++;
      if (next >= line.length || !isSentenceStart(line[next] as string)) continue;
      if (ch === '.') {
        let w = i;
        while (w > start && line[w - 1] !== ' ') w--;
        const before = line
          .slice(w, i)
          .toLowerCase()
          .replace(/^[("'“‘]+/, '');
        if (ABBREVIATIONS.has(before) || /^\p{L}$/u.test(before)) continue;
      }
      const sentence = line.slice(start, end).trim();
      if (sentence !== '') out.push(sentence);
      start = next;
      i = next - 1;
    }
    const rest = line.slice(start).trim();
    if (rest !== '' && out.length < maxSentences) out.push(rest);
    if (out.length >= maxSentences) break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// summary

interface Candidate {
  readonly index: number;
  readonly text: string;
  readonly stems: ReadonlySet<string>;
}

function isProse(sentence: string): boolean {
  const n = sentence.split(' ').length;
  if (n < 8 || n > 60 || sentence.length > 400 || sentence.endsWith(':')) return false;
  // A line without final punctuation is a heading, a label or a list entry unless it is long.
  return /[.!?]["'”’)]*$/.test(sentence) || n >= 12;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let common = 0;
  for (const w of a) if (b.has(w)) common++;
  const union = a.size + b.size - common;
  return union === 0 ? 0 : common / union;
}

// Tuned on the fixtures of test/fixtures/analyze: a title word counts like a word shared by ten
// sentences; the score is divided by length^0.7 (between favouring long and short sentences); the
// first sentence gets x2, the second x1.5, the third x1.33.
const TOPIC_BONUS = 3;
const LENGTH_DAMPING = 0.7;
const LEAD_BONUS = 1;

/**
 * Centroid summary: a sentence scores by how many other sentences share its content words (words
 * found once say nothing about the page as a whole), words of the title, h1 and description count
 * extra, and earlier sentences get a small lead bonus (news and docs put the gist first).
 */
function summarize(digest: PageDigest): string {
  const candidates: Candidate[] = [];
  for (const text of splitSentences(digest.mainText, EXTRACTIVE_LIMITS.sentences)) {
    if (isProse(text))
      candidates.push({ index: candidates.length, text, stems: new Set(contentStems(text)) });
  }
  if (candidates.length === 0) return capChars(digest.description, EXTRACTIVE_LIMITS.summaryChars);
  const frequency = new Map<string, number>();
  for (const c of candidates) for (const w of c.stems) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  const topic = new Set(contentStems(`${digest.title} ${digest.h1} ${digest.description}`));
  const score = (c: Candidate): number => {
    if (c.stems.size === 0) return 0;
    let sum = 0;
    // sqrt: a word in every sentence ("check" on a monitoring page) should not drown the rest.
    for (const w of c.stems) sum += Math.sqrt((frequency.get(w) ?? 1) - 1) + (topic.has(w) ? TOPIC_BONUS : 0);
    return (sum / c.stems.size ** LENGTH_DAMPING) * (1 + LEAD_BONUS / (1 + c.index));
  };
  const ranked = candidates
    .map((c) => ({ c, s: score(c) }))
    .sort((a, b) => b.s - a.s || a.c.index - b.c.index);
  const chosen: Candidate[] = [];
  let chars = 0;
  for (const { c } of ranked) {
    if (chosen.length >= EXTRACTIVE_LIMITS.summarySentences) break;
    if (chars + c.text.length + 1 > EXTRACTIVE_LIMITS.summaryChars) continue;
    if (chosen.some((d) => jaccard(d.stems, c.stems) > 0.5)) continue;
    chosen.push(c);
    chars += c.text.length + 1;
  }
  return chosen
    .sort((a, b) => a.index - b.index)
    .map((c) => c.text)
    .join(' ');
}

// ---------------------------------------------------------------------------------------------
// valueProposition

function valueProposition(digest: PageDigest): string {
  const h1 = digest.h1;
  const sub = digest.subtitle || digest.description;
  let text: string;
  if (h1 === '') text = sub;
  else if (sub === '' || sub.toLowerCase().includes(h1.toLowerCase())) text = sub || h1;
  else text = /[.!?:]$/.test(h1) ? `${h1} ${sub}` : `${h1}. ${sub}`;
  return capChars(text, EXTRACTIVE_LIMITS.valuePropositionChars);
}

// ---------------------------------------------------------------------------------------------
// keyFeatures

// Section headings or container classes that announce features (stems).
const FEATURE_CUES: ReadonlySet<string> = new Set(
  ['feature', 'benefit', 'why', 'capability', 'highlight', 'advantage', 'key'].map(stem),
);
// Sections that list what a business offers (stems and phrases).
const OFFER_CUES: ReadonlySet<string> = new Set(['service', 'offer', 'product', 'include', 'menu'].map(stem));
const OFFER_PHRASES = ['what we ', 'what you get', "what's included", 'what is included'];
const PRICE = /[$€£¥₹]\s?\d|\d\s?(?:usd|eur|gbp|€|£|\$)(?:\b|$)|\/mo\b|per month/i;
const YEAR = /\b(?:19|20)\d\d\b/;
const TIME = /\b\d{1,2}[:.]\d{2}\b/;

function cueWords(entry: OutlineEntry): Set<string> {
  return new Set([...words(entry.section), ...entry.hint.split(' ')].map(stem));
}

function hasCue(set: ReadonlySet<string>, cues: ReadonlySet<string>): boolean {
  for (const w of set) if (cues.has(w)) return true;
  return false;
}

function readsAsFeature(text: string): boolean {
  const n = text.split(' ').length;
  return (
    n >= 2 &&
    n <= 16 &&
    text.length <= EXTRACTIVE_LIMITS.featureChars &&
    !text.endsWith('?') &&
    !PRICE.test(text)
  );
}

function keyFeatures(digest: PageDigest): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (text: string): void => {
    const key = text.toLowerCase();
    if (out.length < EXTRACTIVE_LIMITS.keyFeatures && !seen.has(key) && readsAsFeature(text)) {
      seen.add(key);
      out.push(text.replace(/[.;,]$/, ''));
    }
  };
  // 1. Headings and list items of feature sections. A heading that names the section ("Features")
  // is skipped, and of headings at several levels only the deepest count: "Everything you need" over
  // six h3 cards is the section's title, the cards are the features.
  const inFeatures = digest.outline.filter(
    (e) =>
      e.kind !== 'paragraph' &&
      hasCue(cueWords(e), FEATURE_CUES) &&
      !(e.kind === 'heading' && hasCue(new Set(words(e.text).map(stem)), FEATURE_CUES)),
  );
  const deepest = inFeatures.reduce((max, e) => Math.max(max, e.level), 0);
  for (const e of inFeatures) if (e.kind === 'item' || e.level === deepest) push(e.text);
  // 2. List items of sections that say what is offered ("What we bake", "Services", "Menu").
  for (const e of digest.outline) {
    if (e.kind !== 'item') continue;
    const section = `${e.section.toLowerCase()} `;
    if (hasCue(cueWords(e), OFFER_CUES) || OFFER_PHRASES.some((p) => section.includes(p))) push(e.text);
  }
  // 3. Nothing announced: capitalised, short list items that are not dates, times or prices, if a
  // page has at least three of them (one stray bullet is not a feature list).
  if (out.length === 0) {
    const loose = digest.outline.filter(
      (e) =>
        e.kind === 'item' &&
        /^[\p{Lu}]/u.test(e.text) &&
        !YEAR.test(e.text) &&
        !TIME.test(e.text) &&
        readsAsFeature(e.text),
    );
    if (loose.length >= 3) for (const e of loose) push(e.text);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// categories

/**
 * One row of the category taxonomy: a name, its kind and keywords (one or two words, matched after
 * the same suffix stripping as the page's words) with their weights. A `type` says what kind of
 * site or page it is, a `topic` what it is about; a page gets at most one type and then topics.
 */
export interface TaxonomyRow {
  readonly name: string;
  readonly kind: 'type' | 'topic';
  readonly keywords: Readonly<Record<string, number>>;
}

// The taxonomy as a table: name, kind, "keyword weight" pairs. Weights: 3 for a word that nearly
// decides the category, 2 for a strong hint, 1 for a weak one.
// biome-ignore format: one row per category keeps the table readable
const TAXONOMY_TABLE: readonly (readonly [string, 'type' | 'topic', string])[] = [
  ['Software / SaaS', 'type', 'saas 3, software 2, platform 1, dashboard 1, integration 1, free trial 3, free plan 3, paid plan 3, per month 2, pricing 1, sign up 1, sign in 1, plan 1, subscription 2, cloud 1, app 1, workflow 1, credit card 1, automate 1, monitor 1, account 1'],
  ['Developer Tools', 'topic', 'developer 2, api 2, sdk 3, cli 3, github 2, code 1, open source 2, library 1, npm 3, debug 2, deploy 1, client 1, request 1, endpoint 2, microservice 2, cron 2'],
  ['Documentation', 'type', 'documentation 3, docs 2, guide 1, reference 1, tutorial 2, configure 2, configuration 2, option 1, default 1, parameter 2, install 1, installation 2, getting started 2, example 1, quickstart 3'],
  ['E-commerce', 'type', 'cart 3, basket 3, checkout 2, add to 1, shipping 2, delivery 1, in stock 3, dispatch 2, return 1, refund 2, shop 2, store 1, buy 2, order 1, sale 1, review 1, verified buyer 3, product 1, warranty 2, guarantee 1'],
  ['News & Media', 'type', 'news 2, said 1, told 1, according 1, spokesperson 2, correspondent 3, reporter 3, editor 1, breaking 2, herald 3, gazette 3, tribune 3, courier 2, chronicle 2, journalist 2, newsroom 3, headline 1'],
  ['Government & Politics', 'topic', 'council 2, councillor 3, government 2, minister 2, parliament 3, election 2, mayor 2, vote 1, policy 1, cabinet 2, opposition 2, authority 1, public 1, law 1'],
  ['Local Business', 'type', 'opening hours 3, visit us 3, find us 3, get in touch 1, address 1, directions 2, parking 2, family run 3, local 1, neighbour 2, neighbor 2, monday 1, saturday 1, sunday 1, walk 1, pop in 2, shop 1, appointment 2'],
  ['Food & Drink', 'topic', 'bakery 3, bread 2, loaf 2, sourdough 3, cake 2, pastry 2, croissant 3, restaurant 3, menu 1, cafe 2, café 2, coffee 2, tea 1, food 2, recipe 2, cook 1, dinner 2, lunch 2, breakfast 2, wine 2, beer 2, bake 2, kitchen 1, chef 2'],
  ['Health & Medicine', 'topic', 'health 2, medical 3, doctor 2, clinic 3, patient 3, treatment 2, symptom 3, hospital 3, therapy 2, nurse 3, dental 3, wellness 2, medicine 3, care 1'],
  ['Fitness & Sports', 'topic', 'fitness 3, gym 3, workout 3, training 1, sport 2, football 3, match 1, league 2, athlete 3, running 1, yoga 3, promotion 1'],
  ['Finance & Banking', 'topic', 'finance 3, financial 2, bank 3, banking 3, loan 3, mortgage 2, credit 1, invest 2, investment 2, tax 2, accounting 3, payment 1, fintech 3, budget 1, borrow 1, savings 2'],
  ['Insurance', 'topic', 'insurance 3, insurer 3, premium 1, claim 1, cover 1, policyholder 3'],
  ['Education', 'topic', 'education 3, course 2, learn 2, learning 2, student 3, school 2, university 3, teacher 3, class 1, curriculum 3, lesson 2, degree 2, workshop 1'],
  ['Travel & Hospitality', 'topic', 'travel 3, hotel 3, flight 3, booking 1, trip 2, destination 2, vacation 3, holiday 2, tour 2, resort 3, guest 1, room 1'],
  ['Real Estate', 'topic', 'real estate 3, property 2, apartment 3, rent 2, for sale 2, bedroom 3, landlord 3, tenant 3, listing 1, estate 1, homes 1'],
  ['Marketing & Advertising', 'topic', 'marketing 3, seo 3, campaign 2, advertising 3, ads 1, brand 1, lead 1, conversion 2, audience 1, social media 2, newsletter 1'],
  ['Analytics & Data', 'topic', 'analytics 3, data 1, metric 2, dashboard 2, report 1, insight 2, tracking 2, funnel 3, cohort 3, visualization 3, sql 2, events 1'],
  ['Security & Privacy', 'topic', 'security 2, secure 1, privacy 2, encryption 3, compliance 2, gdpr 2, vulnerability 3, authentication 2, password 2, threat 2, single sign 1, audit 1'],
  ['AI & Machine Learning', 'topic', 'ai 3, machine learning 3, model 1, llm 3, neural 3, gpt 3, artificial intelligence 3, inference 2, chatbot 2'],
  ['Infrastructure & DevOps', 'topic', 'uptime 3, monitoring 2, outage 3, incident 2, on call 3, devops 3, server 2, hosting 3, kubernetes 3, latency 2, status page 3, infrastructure 3, backup 1, alert 1, retry 1, timeout 1'],
  ['Productivity & Collaboration', 'topic', 'productivity 3, collaboration 3, project management 3, task 2, calendar 2, workspace 2, meeting 1, notes 1, team 1'],
  ['Communication', 'topic', 'chat 2, messaging 3, inbox 2, email 1, video call 3, sms 1, notification 1'],
  ['Design & Creative', 'topic', 'design 2, designer 3, figma 3, creative 2, illustration 3, font 2, photography 3, template 1'],
  ['HR & Recruiting', 'topic', 'hiring 3, recruiting 3, recruitment 3, candidate 2, payroll 3, employee 2, hr 3, careers 1, jobs 1'],
  ['Legal', 'topic', 'legal 2, lawyer 3, attorney 3, solicitor 3, law firm 3, contract 1, litigation 3'],
  ['Home & Garden', 'topic', 'home 1, garden 3, kitchen 2, cookware 3, furniture 3, decor 3, hob 2, oven 2, skillet 3, pan 2, cleaning 1, diy 3'],
  ['Home Services', 'topic', 'plumber 3, plumbing 3, electrician 3, boiler 3, heating 2, repair 2, handyman 3, roofing 3, call out 3, emergency 1, quote 1, installer 2'],
  ['Fashion & Beauty', 'topic', 'fashion 3, clothing 3, dress 2, shoes 2, apparel 3, beauty 3, skincare 3, cosmetics 3, jewellery 3, jewelry 3, size 1'],
  ['Consumer Electronics', 'topic', 'headphones 3, laptop 3, smartphone 3, battery 2, bluetooth 3, camera 2, wireless 2, charger 3, tv 2, speaker 2'],
  ['Entertainment & Culture', 'topic', 'music 3, movie 3, film 2, game 2, gaming 3, streaming 2, podcast 2, concert 3, festival 2, tickets 2, theatre 3, exhibition 1'],
  ['Automotive', 'topic', 'car 2, vehicle 3, automotive 3, dealer 2, tyre 3, tire 3, engine 1, driving 1, mot 3'],
  ['Transport & Logistics', 'topic', 'transport 3, tram 3, bus 2, train 2, rail 3, logistics 3, freight 3, passenger 3, route 1, commuter 3, stop 1'],
  ['Nonprofit & Community', 'topic', 'donate 3, donation 3, charity 3, volunteer 3, nonprofit 3, community 1, foundation 1, fundraising 3'],
  ['Science & Research', 'topic', 'research 2, study 1, scientist 3, journal 1, laboratory 3, experiment 3, researcher 3, peer 1'],
  ['Environment & Energy', 'topic', 'climate 3, energy 2, solar 3, renewable 3, emission 3, environment 2, carbon 2, sustainability 3, flood 2'],
];

/** The categories the extractive analyzer chooses from, parsed from TAXONOMY_TABLE (docs/analyze-extractive.md prints it). */
export const CATEGORY_TAXONOMY: readonly TaxonomyRow[] = Object.freeze(
  TAXONOMY_TABLE.map(([name, kind, pairs]) => ({
    name,
    kind,
    keywords: Object.fromEntries(
      pairs.split(', ').map((pair) => {
        const at = pair.lastIndexOf(' ');
        return [pair.slice(0, at), Number(pair.slice(at + 1))];
      }),
    ),
  })),
);

// Where a keyword is found counts this much; occurrences per keyword and source are capped so that a
// long page does not win by repeating one word.
const SOURCE_WEIGHTS = { title: 3, h1: 3, description: 2, headings: 1.5, mainText: 1 } as const;
const OCCURRENCE_CAP = 3;
const CATEGORY_MIN_SCORE = 8;
const CATEGORY_MIN_SHARE = 0.35;

interface CompiledRow {
  readonly name: string;
  readonly kind: 'type' | 'topic';
  readonly keywords: readonly { readonly key: string; readonly weight: number }[];
}

const COMPILED: readonly CompiledRow[] = CATEGORY_TAXONOMY.map((row) => ({
  name: row.name,
  kind: row.kind,
  keywords: Object.entries(row.keywords).map(([k, weight]) => ({
    key: words(k).map(stem).join(' '),
    weight,
  })),
}));

/** Counts of the stems and stem pairs of `text` (pairs over all words, so "add to" and "on call" match). */
function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  let previous = '';
  for (const w of words(text)) {
    const s = stem(w);
    counts.set(s, (counts.get(s) ?? 0) + 1);
    if (previous !== '') {
      const pair = `${previous} ${s}`;
      counts.set(pair, (counts.get(pair) ?? 0) + 1);
    }
    previous = s;
  }
  return counts;
}

function categories(digest: PageDigest): string[] {
  const sources = [
    { counts: termCounts(digest.title), weight: SOURCE_WEIGHTS.title },
    { counts: termCounts(digest.h1), weight: SOURCE_WEIGHTS.h1 },
    { counts: termCounts(digest.description), weight: SOURCE_WEIGHTS.description },
    { counts: termCounts(digest.headings.join('\n')), weight: SOURCE_WEIGHTS.headings },
    { counts: termCounts(digest.mainText), weight: SOURCE_WEIGHTS.mainText },
  ];
  const scored = COMPILED.map((row, order) => {
    let score = 0;
    for (const { key, weight } of row.keywords) {
      for (const source of sources)
        score += weight * source.weight * Math.min(source.counts.get(key) ?? 0, OCCURRENCE_CAP);
    }
    return { name: row.name, kind: row.kind, score, order };
  })
    .filter((c) => c.score >= CATEGORY_MIN_SCORE)
    .sort((a, b) => b.score - a.score || a.order - b.order);
  // Types and topics are ranked apart: a news story about trams scores higher on its topic than on
  // being news, and both answers are wanted.
  const type = scored.find((c) => c.kind === 'type');
  const topics = scored.filter((c) => c.kind === 'topic');
  const top = topics[0]?.score ?? 0;
  return [
    ...(type ? [type.name] : []),
    ...topics.filter((c) => c.score >= top * CATEGORY_MIN_SHARE).map((c) => c.name),
  ].slice(0, EXTRACTIVE_LIMITS.categories);
}

// ---------------------------------------------------------------------------------------------
// useCases and targetAudience: phrases after cue words, found by plain string search

/** Sentences of the hero, headings and paragraphs, in that order, capped. */
function pageSentences(digest: PageDigest): string[] {
  const blocks = [
    digest.h1,
    digest.subtitle,
    digest.description,
    digest.title,
    ...digest.headings,
    ...digest.paragraphs,
  ];
  return splitSentences(blocks.filter((b) => b !== '').join('\n'), EXTRACTIVE_LIMITS.sentences);
}

// A clause ends at these; a phrase after a cue word is read up to the first of them.
const CLAUSE_END = new Set(['.', ';', ':', '!', '?', '(', '—', '–', '|']);
const CLAUSE_JOINERS = [', and ', ', but ', ', so ', ', which ', ' so that ', ' because '];

/** Up to `maxWords` words of `sentence` from `from`, stopping at the end of the clause. */
function phraseAt(sentence: string, from: number, maxWords: number): string {
  let end = sentence.length;
  for (let i = from; i < sentence.length; i++) {
    if (
      CLAUSE_END.has(sentence[i] as string) &&
      (sentence[i] !== '.' || /\s|$/.test(sentence[i + 1] ?? ''))
    ) {
      end = i;
      break;
    }
  }
  let text = sentence.slice(from, end);
  const lower = text.toLowerCase();
  for (const joiner of CLAUSE_JOINERS) {
    const at = lower.indexOf(joiner);
    if (at >= 0 && at < text.length) text = text.slice(0, at);
  }
  const kept = text
    .split(' ')
    .filter((w) => w !== '')
    .slice(0, maxWords);
  // A phrase cut short should not end on "to" or "the".
  while (kept.length > 1 && STOP_WORDS.has((kept[kept.length - 1] as string).toLowerCase())) kept.pop();
  return kept.join(' ').replace(/[,"'”’)]+$/, '');
}

/** Each place in `sentence` (lower-cased in `lower`) where `cue` starts at a word boundary. */
function* cueHits(lower: string, cue: string): Generator<number> {
  for (let at = lower.indexOf(cue); at >= 0; at = lower.indexOf(cue, at + 1)) {
    if (at === 0 || !/[\p{L}\p{N}]/u.test(lower[at - 1] as string)) yield at + cue.length;
  }
}

const USE_CASE_CUES = [
  'use it to ',
  'use it for ',
  'helps you ',
  'help you ',
  'lets you ',
  'allows you to ',
  'enables you to ',
  'so you can ',
  'helps teams ',
  'helps businesses ',
];
// "Ideal for X": a use case when X is an activity ("ideal for baking"), an audience otherwise.
const FIT_CUES = [
  'ideal for ',
  'perfect for ',
  'great for ',
  'built for ',
  'designed for ',
  'made for ',
  'created for ',
  'tailored for ',
  'aimed at ',
];
// -ing words that are not activities.
const NOT_ACTIVITIES: ReadonlySet<string> = new Set([
  'nothing',
  'something',
  'anything',
  'everything',
  'morning',
  'evening',
  'thing',
  'things',
  'during',
  'king',
  'spring',
  'ceiling',
  'building',
  'wedding',
  'string',
  'ring',
]);

function isActivity(word: string): boolean {
  const w = word.toLowerCase();
  return w.length > 4 && w.endsWith('ing') && !NOT_ACTIVITIES.has(w);
}

function isUseCaseSection(entry: OutlineEntry): boolean {
  const text = ` ${entry.section.toLowerCase()} ${entry.hint} `;
  return (
    text.includes('use case') ||
    text.includes('usecase') ||
    text.includes(' use-case') ||
    text.includes(' solutions ') ||
    text.includes('what you can do')
  );
}

function dedupeNested(phrases: readonly string[], max: number): string[] {
  const out: string[] = [];
  for (const p of phrases) {
    const lower = p.toLowerCase();
    const inside = out.findIndex((o) => o.toLowerCase().includes(lower) || lower.includes(o.toLowerCase()));
    if (inside < 0) {
      if (out.length < max) out.push(p);
    } else if (p.length > (out[inside] as string).length) out[inside] = p;
  }
  return out;
}

function useCases(digest: PageDigest, sentences: readonly string[]): string[] {
  const found: string[] = [];
  for (const e of digest.outline) {
    if (e.kind === 'paragraph' || !isUseCaseSection(e) || !readsAsFeature(e.text)) continue;
    // The section's own heading ("Use cases") is not one of them.
    if (e.kind === 'heading' && isUseCaseSection({ ...e, section: e.text, hint: '' })) continue;
    found.push(e.text.replace(/[.;]$/, ''));
  }
  for (const sentence of sentences) {
    const lower = sentence.toLowerCase();
    for (const cue of USE_CASE_CUES) {
      for (const at of cueHits(lower, cue))
        found.push(phraseAt(sentence, at, EXTRACTIVE_LIMITS.useCaseWords));
    }
    for (const cue of FIT_CUES) {
      for (const at of cueHits(lower, cue)) {
        const phrase = phraseAt(sentence, at, EXTRACTIVE_LIMITS.useCaseWords);
        if (isActivity(phrase.split(' ')[0] ?? '')) found.push(phrase);
      }
    }
  }
  return dedupeNested(
    found.filter((p) => p.split(' ').length >= 2).map(capitalize),
    EXTRACTIVE_LIMITS.useCases,
  );
}

// Nouns that name people or organisations a page is for (singular and plural).
const AUDIENCE_NOUNS: ReadonlySet<string> = new Set(
  (
    'team teams developer developers engineer engineers designer designers marketer marketers business businesses ' +
    'startup startups agency agencies enterprise enterprises company companies organisation organisations ' +
    'organization organizations freelancer freelancers creator creators professional professionals beginner ' +
    'beginners student students teacher teachers parent parents family families kid kids child children cook ' +
    'cooks chef chefs baker bakers homeowner homeowners owner owners founder founders individual individuals ' +
    'everyone researcher researchers writer writers shopper shoppers traveller travellers traveler travelers ' +
    'patient patients athlete athletes runner runners gamer gamers investor investors landlord landlords tenant ' +
    'tenants retailer retailers merchant merchants seller sellers admin admins administrator administrators operator ' +
    'operators analyst analysts manager managers leader leaders executive executives nonprofit nonprofits school ' +
    'schools clinic clinics restaurant restaurants shop shops store stores people users customers makers hobbyists ' +
    'enthusiasts lovers'
  ).split(' '),
);
const WHO_CUES = ["whether you're ", 'whether you are '];

/** The words of `phrase` up to its last audience noun (and a "who ..." clause after it), or ''. */
function audiencePhrase(phrase: string): string {
  const ws = phrase.split(' ');
  let last = -1;
  for (let i = 0; i < ws.length && i < 6; i++) {
    if (AUDIENCE_NOUNS.has((ws[i] as string).toLowerCase().replace(/[^\p{L}]/gu, ''))) last = i;
  }
  if (last < 0) return '';
  const next = (ws[last + 1] ?? '').toLowerCase();
  if (next === 'who' || next === 'that') return ws.slice(0, EXTRACTIVE_LIMITS.audienceWords).join(' ');
  return ws.slice(0, last + 1).join(' ');
}

function targetAudience(sentences: readonly string[]): string {
  const found: string[] = [];
  for (const sentence of sentences) {
    const lower = sentence.toLowerCase();
    for (const cue of WHO_CUES) {
      for (const at of cueHits(lower, cue)) {
        const phrase = phraseAt(sentence.replace(/,/g, ';'), at, EXTRACTIVE_LIMITS.audienceWords);
        if (phrase.split(' ').length >= 2) found.push(phrase);
      }
    }
    for (const cue of [...FIT_CUES, 'for ']) {
      for (const at of cueHits(lower, cue)) {
        const phrase = phraseAt(sentence, at, EXTRACTIVE_LIMITS.audienceWords);
        if (isActivity(phrase.split(' ')[0] ?? '')) continue;
        const who = audiencePhrase(phrase);
        if (who !== '') found.push(who);
      }
    }
  }
  return dedupeNested(found, 2).join('; ');
}

// ---------------------------------------------------------------------------------------------
// custom fields

// Words of a field's meaning that describe the request rather than the answer.
const QUERY_STOP: ReadonlySet<string> = new Set(
  [
    'page',
    'website',
    'site',
    'web',
    'information',
    'info',
    'detail',
    'describe',
    'description',
    'list',
    'mention',
    'text',
    'section',
    'provide',
    'available',
    'field',
    'value',
    'answer',
    'string',
  ].map(stem),
);
// Words that ask for the same thing, folded onto one stem on both sides.
const SYNONYMS: ReadonlyMap<string, string> = new Map([
  ['cost', 'pric'],
  ['fee', 'pric'],
  ['telephon', 'phone'],
  ['tel', 'phone'],
  ['mobil', 'phone'],
  ['mail', 'email'],
  ['locat', 'address'],
]);
// A field's name is its label: its words count twice those of the meaning.
const NAME_WEIGHT = 2;
const CUSTOM_MIN_COVERAGE = 0.4;
// Class and id words of a passage's container that count as its words ("price", "hours", "address").
const HINT_WORDS = 3;
const STREET =
  /\b\d+[a-z]?,? (?:[\p{Lu}][\p{L}'-]* ){1,3}(?:road|street|st|lane|avenue|ave|way|drive|place|square|boulevard|blvd|rd)\b/iu;
const EMAIL = /@[\p{L}\p{N}-]+\.\p{L}{2,}/u;

function canonical(stems: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const s of stems) out.add(SYNONYMS.get(s) ?? s);
  return out;
}

/** True when `text` holds a run of at least nine digits among spaces, dashes and brackets; one pass. */
function hasPhoneLike(text: string): boolean {
  let digits = 0;
  for (const ch of text) {
    if (ch >= '0' && ch <= '9') {
      if (++digits >= 9) return true;
    } else if (ch !== ' ' && ch !== '-' && ch !== '(' && ch !== ')' && ch !== '+' && ch !== '.') digits = 0;
  }
  return false;
}

/** Stems a passage is about: its words, its section heading, its container's hint and what its text looks like. */
function passageStems(text: string, entry: OutlineEntry | null): Set<string> {
  const hint = entry ? entry.hint.split(' ').slice(0, HINT_WORDS).join(' ') : '';
  const stems = canonical(contentStems(`${entry?.section ?? ''} ${hint} ${text}`));
  if (PRICE.test(text)) stems.add('pric');
  if (hasPhoneLike(text)) stems.add('phone');
  if (EMAIL.test(text)) stems.add('email');
  if (STREET.test(text)) stems.add('address');
  return stems;
}

interface Passage {
  readonly text: string;
  readonly stems: ReadonlySet<string>;
  readonly entry: OutlineEntry | null;
  readonly index: number;
}

/** The query of one custom field: its stems with their weights (name words count more). */
function fieldQuery(name: string, meaning: string): Map<string, number> {
  const spaced = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ');
  const query = new Map<string, number>();
  for (const s of canonical(contentStems(meaning))) if (!QUERY_STOP.has(s)) query.set(s, 1);
  for (const s of canonical(contentStems(spaced))) if (!QUERY_STOP.has(s)) query.set(s, NAME_WEIGHT);
  return query;
}

/** The list items under the same heading as `outline[index]`, joined, when the best passage is a list item. */
function wholeList(outline: readonly OutlineEntry[], index: number): string {
  const entry = outline[index] as OutlineEntry;
  let from = index;
  while (from > 0 && outline[from - 1]?.kind === 'item' && outline[from - 1]?.section === entry.section)
    from--;
  const items: string[] = [];
  for (let i = from; i < outline.length; i++) {
    const e = outline[i] as OutlineEntry;
    if (e.kind !== 'item' || e.section !== entry.section) break;
    items.push(e.text.replace(/[.;]$/, ''));
  }
  return items.join('; ');
}

/**
 * Each custom field's answer: the passage (paragraph, list item, table row or the hero) whose stems
 * cover most of the field's query, weighted by rarity on the page (idf), or '' below
 * CUSTOM_MIN_COVERAGE; a list item brings its whole list.
 */
function answerCustom(
  digest: PageDigest,
  customFields: Readonly<Record<string, string>>,
): Record<string, string> {
  const names = Object.keys(customFields);
  if (names.length === 0) return {};
  const passages: Passage[] = [];
  for (const text of [digest.h1, digest.subtitle]) {
    if (text !== '') passages.push({ text, stems: passageStems(text, null), entry: null, index: -1 });
  }
  digest.outline.forEach((entry, index) => {
    if (entry.kind !== 'heading')
      passages.push({ text: entry.text, stems: passageStems(entry.text, entry), entry, index });
  });
  const documentFrequency = new Map<string, number>();
  for (const p of passages)
    for (const s of p.stems) documentFrequency.set(s, (documentFrequency.get(s) ?? 0) + 1);
  const idf = (s: string): number =>
    Math.log(1 + (passages.length + 1) / (1 + (documentFrequency.get(s) ?? 0)));

  // Built with fromEntries: a field named "__proto__" becomes a plain property, not the prototype.
  const answers: [string, string][] = [];
  for (const name of names) {
    const query = fieldQuery(name, customFields[name] ?? '');
    let total = 0;
    for (const [s, weight] of query) total += weight * idf(s);
    let best: { p: Passage; coverage: number } | null = null;
    for (const p of passages) {
      let matched = 0;
      for (const [s, weight] of query) if (p.stems.has(s)) matched += weight * idf(s);
      const coverage = total > 0 ? matched / total : 0;
      // Strictly better only: of equal passages the first in page order wins (the product's own
      // price comes before the prices of related products, the pricing text before the plan cards).
      if (coverage > 0 && (!best || coverage > best.coverage)) best = { p, coverage };
    }
    if (!best || best.coverage < CUSTOM_MIN_COVERAGE) {
      answers.push([name, '']);
      continue;
    }
    const text = best.p.entry?.kind === 'item' ? wholeList(digest.outline, best.p.index) : best.p.text;
    answers.push([name, capChars(text, EXTRACTIVE_LIMITS.customChars)]);
  }
  return Object.fromEntries(answers);
}

// ---------------------------------------------------------------------------------------------

/**
 * The extractive analysis of `digest`: every field a string or string array (never null), ''
 * or [] when the page does not say; `custom` has one string per requested field name, the
 * best-matching passage or ''. Deterministic: no randomness, ties go to page order.
 */
export function analyzeExtractive(
  digest: PageDigest,
  customFields: Readonly<Record<string, string>>,
): { fields: AnalysisFields; custom: Record<string, string> } {
  const sentences = pageSentences(digest);
  return {
    fields: {
      summary: summarize(digest),
      valueProposition: valueProposition(digest),
      keyFeatures: keyFeatures(digest),
      categories: categories(digest),
      useCases: useCases(digest, sentences),
      targetAudience: targetAudience(sentences),
    },
    custom: answerCustom(digest, customFields),
  };
}
