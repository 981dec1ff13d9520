import { EXTRACTIVE_LIMITS } from './limits.js';
import { cueHits, dedupeNested, FIT_CUES, isActivity, phraseAt } from './phrases.js';

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

/** Who the page says it is for, up to an audience noun; at most two phrases joined with "; ", or ''. */
export function targetAudience(sentences: readonly string[]): string {
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
