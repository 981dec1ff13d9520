import type { PageDigest } from '../page-digest.js';
import { EXTRACTIVE_LIMITS } from './limits.js';
import { cueHits, dedupeNested, isActivity, phraseAt } from './phrases.js';
import { mainTexts, splitSentences } from './sentences.js';

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
    'enthusiasts lovers retirees pensioners seniors graduates learners novices newcomers adults teens teenagers ' +
    'toddlers babies women men girls boys riders cyclists drivers commuters renters buyers consultants contractors ' +
    'accountants lawyers doctors nurses clinicians musicians artists photographers coaches practitioners'
  ).split(' '),
);

// Words that may stand before the audience noun in its noun phrase ("small engineering teams",
// "dog and cat owners"); a pronoun, number or other function word means the phrase is something else
// ("for your business", "for up to 10 users", "for this to trip up developers").
const JOINERS: ReadonlySet<string> = new Set(['and', 'or', '&', 'a', 'an', 'the']);
const NOT_MODIFIERS: ReadonlySet<string> = new Set(
  (
    'your our my their his her its this that these those which what who whom whose all any some each every ' +
    'no not to of in on at by with from up down into over under about than as is are was were be been being ' +
    'more most less few many much other another such same own only just also even very so too'
  ).split(' '),
);

// Statements of whom something is for, read anywhere in the main content. A bare "for" is read only
// in the page's names and labels (title, h1, headings: "Invoicing for freelancers"): in running
// text, subtitles and descriptions included, it is far more often something else ("carried out for
// the Boston-based organization").
const STATED_CUES = [
  'built for ',
  'designed for ',
  'made for ',
  'created for ',
  'tailored for ',
  'intended for ',
  'meant for ',
  'written for ',
  'ideal for ',
  'perfect for ',
  'great for ',
  'aimed at ',
  'is for ',
  'are for ',
];
const WHO_CUES = ["whether you're ", 'whether you are '];
// Quoted speech is what someone said, not what the page states.
const QUOTES = /["“”«»„]/;

/** The noun phrase that starts `phrase` when it ends in an audience noun ("small engineering teams"), or ''. */
function audiencePhrase(phrase: string): string {
  const ws = phrase.split(' ');
  let last = -1;
  for (let i = 0; i < ws.length && i < 6; i++) {
    const raw = ws[i] as string;
    const word = raw.toLowerCase().replace(/[^\p{L}\p{N}&'-]/gu, '');
    if (AUDIENCE_NOUNS.has(word)) last = i;
    else if (!JOINERS.has(word) && (NOT_MODIFIERS.has(word) || !/^\p{L}[\p{L}'-]*$/u.test(word))) break;
    // A comma ends the noun phrase: what follows is another clause or another list.
    if (/[,;]$/.test(raw)) break;
  }
  if (last < 0) return '';
  return ws
    .slice(0, last + 1)
    .join(' ')
    .replace(/^(?:a|an|the) /i, '')
    .replace(/[,;]$/, '');
}

function phrasesAfter(sentence: string, cues: readonly string[]): string[] {
  if (QUOTES.test(sentence)) return [];
  const lower = sentence.toLowerCase();
  const found: string[] = [];
  for (const cue of cues) {
    for (const at of cueHits(lower, cue)) {
      const phrase = phraseAt(sentence, at, EXTRACTIVE_LIMITS.audienceWords);
      if (isActivity(phrase.split(' ')[0] ?? '')) continue;
      const who = audiencePhrase(phrase);
      if (who !== '') found.push(who);
    }
  }
  return found;
}

/**
 * Whom the page says it is for, or '': its schema.org `audience` when it states one; else the noun
 * phrase ending in an audience noun after "built for", "designed for", "ideal for", "is for",
 * "whether you're" ... in its hero, headings and main text, or after a bare "for" in its title, h1
 * and headings. Quoted speech, menus, sidebars and promos are not read. At most two phrases, "; "-joined.
 */
export function targetAudience(digest: PageDigest): string {
  if (digest.audience !== '') return digest.audience;
  const found: string[] = [];
  const read = (texts: readonly string[], cues: readonly string[]) => {
    for (const sentence of splitSentences(texts.join('\n'), EXTRACTIVE_LIMITS.sentences))
      found.push(...phrasesAfter(sentence, cues));
  };
  const labels = [digest.title, digest.h1, ...mainTexts(digest, 'heading')].filter((t) => t !== '');
  read(labels, [...WHO_CUES, ...STATED_CUES, 'for ']);
  read(
    [digest.subtitle, digest.description, ...mainTexts(digest, 'paragraph')],
    [...WHO_CUES, ...STATED_CUES],
  );
  return dedupeNested(found, 2).join('; ');
}
