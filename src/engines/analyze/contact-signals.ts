import {
  type CountryCode,
  getCountries,
  getCountryCallingCode,
  isSupportedCountry,
  Metadata,
  type NumberFound,
  parseDigits,
  parsePhoneNumberFromString,
  searchPhoneNumbersInText,
} from 'libphonenumber-js/max';
import { parse as parseHost } from 'tldts';
import { readJsonLd } from '../content/json-ld.js';

/**
 * Contact signals: the email addresses and phone numbers a page states, found and never
 * invented, whichever analyzer runs.
 *
 * Where they are read from, in document order (a link's href before its text):
 * - `<a href="mailto:...">` (and `<area>`): the addresses before any `?`, comma-separated,
 *   %-decoded; `<a href="tel:...">`: the number before any `;` parameter, %-decoded, parsed with
 *   the page's country (inferCountry) for a national-format one.
 * - Every text on its own, outside script, style, noscript and template: a text is a run of
 *   adjacent text nodes (one node in a browser's DOM; linkedom splits one at each character
 *   reference). Texts separated by an element never run together: `<span>john</span><span>@acme.io
 *   </span>` is no address, and a number split across elements (`<span>+44 20</span><span>7946
 *   0958</span>`) is not found either; that is the price of never inventing one. No other
 *   attribute is read (no title, alt, data-*, value, placeholder). A text is scanned up to
 *   NODE_MAX_CHARS (cut back to a whitespace, so that no token is cut in two) and a page up to
 *   PAGE_MAX_CHARS of text; the scan stops at MAX_EMAILS and MAX_PHONES.
 *
 * Emails: a dot-atom local part (RFC 5322 3.2.3) of at most 64 characters, one `@`, a domain of
 * at most 253 characters whose labels are letters, digits and inner hyphens and whose TLD is a
 * real one (ICANN section of the Public Suffix List, via tldts), so `logo@2x.png`, `icon@3x.webp`,
 * `a@b.test` and `x@localhost` are not addresses. In text, an address is ASCII letters, digits and
 * `._%+-` before the `@` and must stand on its own: not glued to a letter, a digit or another `@`
 * on either side (`@alice@mastodon.social` is a Fediverse handle, `josé@x.com` would otherwise
 * give `s@x.com`, `o'brien@x.ie` would give `brien@x.ie`). A trailing sentence dot is not part of
 * the domain. Addresses at example.com, example.net and example.org (RFC 2606: reserved, they
 * receive no mail) are dropped: they are samples and form hints, never a way to reach anyone.
 * Lower-cased, each once. Internationalized addresses (non-ASCII local parts or domains) are not
 * found. Obfuscated forms (`name [at] domain [dot] com`, `name(at)domain.com`) are not decoded:
 * a page that hides an address from machines has asked not to be read that way, and any decoding
 * rule would also turn ordinary prose into addresses. (Character references such as `&#64;` are
 * not obfuscation: the parser has made them the characters they stand for.)
 *
 * Phones: libphonenumber-js's finder with its `max` metadata, so that every number is valid for
 * its country's numbering plan (not just of a possible length), written out in E.164 (an
 * extension is dropped: E.164 has none). A number written with `+` (or an international call
 * prefix) is found on any page; a national-format one only when the page's country is known
 * (inferCountry) and only if it carries the national prefix where that country's format
 * requires it (Google libphonenumber's VALID leniency, which libphonenumber-js leaves out;
 * `020 7946 0958` on a British page, not `123456789` on a French one), and, written bare
 * without a prefix, only if it has NATIONAL_MIN_DIGITS digits (the 4- and 5-digit numbers of small
 * plans look like years and postal codes). The finder reads a text one list item at a time (between
 * `,`, `;` and `|`). On top of that, a match is not a phone number when it is labelled as an
 * identifier (`#`, `№`, ISBN, ISSN, EAN, UPC, GTIN, SKU, order, invoice, ref, ID, version, build
 * just before it), is part of a longer number (a digit and `.`, `,` or `:`, or a group of three
 * digits and a space or hyphen, just before or after it), sits next to a currency sign, or has
 * the shape of something else (NOT_PHONE_SHAPES: a date with a four-digit year, a range of years,
 * a postal code, an IPv4 address, a payment card's grouping, a quantity in thousands, a decimal,
 * a bare run of 13 digits or more). What is left: with a wrong page country a national-format
 * token may still read as a number of that country, most often in plans with short numbers
 * (Luxembourg, Andorra, Somalia, ...); numbers written with `+` are not affected.
 */

export interface ContactSignals {
  readonly emails: string[];
  readonly phoneNumbers: string[];
}

const MAX_EMAILS = 100;
const MAX_PHONES = 100;
const NODE_MAX_CHARS = 100_000;
const PAGE_MAX_CHARS = 2_000_000;
const HREF_MAX_CHARS = 8_192;
const LOCAL_MAX_CHARS = 64;
const DOMAIN_MAX_CHARS = 253;
const COUNTRY_NAME_MAX_CHARS = 60;
/** The fewest digits of a number written in national format without a national prefix. */
const NATIONAL_MIN_DIGITS = 6;

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const SKIPPED_ELEMENTS: ReadonlySet<string> = new Set(['script', 'style', 'noscript', 'template']);

/** RFC 5322 dot-atom: atext runs joined by single dots. */
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
const RESERVED_DOMAINS: readonly string[] = ['example.com', 'example.net', 'example.org'];
/** What may not touch an address found in text: a word character, or an `@`. */
const GLUED_BEFORE = /(?:[\p{L}\p{N}\p{M}_@]|[\p{L}\p{N}][!#$&'*/=?^`{|}~\u2019])$/u;
const GLUED_AFTER = /^[\p{L}\p{N}\p{M}_@]/u;

const HAS_DIGIT = /\p{Nd}/u;
const LIST_SEPARATORS = ',;|';
const WHITESPACE = /\s/;
const PLUS_FIRST = /^[+\uFF0B]/;
/** How much text around a match its context rules look at. */
const CONTEXT_CHARS = 24;

/** Whole matches of the finder that are something else than a phone number. */
const NOT_PHONE_SHAPES: readonly RegExp[] = [
  // A date with a four-digit year: 12.05.2024, 2024-05-12 (slashed dates are the finder's own rule).
  /(?<!\p{Nd})(?:\p{Nd}{1,2}([./-])\p{Nd}{1,2}\1(?:19|20)\p{Nd}{2}|(?:19|20)\p{Nd}{2}([./-])\p{Nd}{1,2}\2\p{Nd}{1,2})(?!\p{Nd})/u,
  // A range of years: 1990-2024.
  /^(?:1[89]|20)\p{Nd}{2}\s*[-\u2013\u2014]\s*(?:1[89]|20)\p{Nd}{2}$/u,
  // A postal code: US ZIP+4, Brazilian CEP, Portuguese.
  /^(?:\p{Nd}{5}-\p{Nd}{3,4}|\p{Nd}{4}-\p{Nd}{3})$/u,
  // An IPv4 address.
  /^\p{Nd}{1,3}(?:\.\p{Nd}{1,3}){3}$/u,
  // A payment card's grouping: 4-4-4-4 or 4-6-5.
  /^\p{Nd}{4}([ -])(?:\p{Nd}{4}\1\p{Nd}{4}\1\p{Nd}{4}|\p{Nd}{6}\1\p{Nd}{5})$/u,
  // A quantity in thousands groups: 12 345 678 901 (three groups are a Spanish or Polish number).
  /^[1-9]\p{Nd}{0,2}([ .\u00A0\u202F])\p{Nd}{3}(?:\1\p{Nd}{3}){2,}$/u,
  // A decimal number: 15.153346788.
  /^\p{Nd}{1,3}\.\p{Nd}+$/u,
  // A long bare run of digits not dialled with 00: an identifier.
  /^[1-9]\p{Nd}{12,}$/u,
];
/** The text just before a match that makes it something else than a phone number. */
const NOT_PHONE_BEFORE: readonly RegExp[] = [
  // A label naming an identifier: #, №, ISBN, SKU, Order no., Build ...
  /(?:[#№]|\b(?:isbn(?:-1[03])?|issn|ean|upc|gtin|sku|order|invoice|ref|id|version|build)\b)[\s#:.-]*(?:(?:no|nr|number)\b[\s#:.]*)?$/i,
  // The end of a longer number: 3.14159..., 10.0.19045, a card's last groups.
  /\p{Nd}[.,:]$|\p{Nd}{3}[\s-]$/u,
  // A price: € 512 022 241.
  /\p{Sc}\s*$/u,
];
/** The text just after a match that makes it something else than a phone number. */
const NOT_PHONE_AFTER: readonly RegExp[] = [/^[.,:]\p{Nd}|^[\s-]\p{Nd}{3}/u, /^\s*\p{Sc}/u];

/** ccTLDs that Google treats as generic (Search Central's list, plus .gg from its 2013 one). */
const GENERIC_CCTLDS: ReadonlySet<string> = new Set(
  'ad ai as bz cc cd co dj fm gg io la me ms nu sc sr su tk tv ws'.split(' '),
);
const COUNTRY_ALIASES: ReadonlyMap<string, CountryCode> = new Map([
  ['uk', 'GB'],
  ['great britain', 'GB'],
  ['usa', 'US'],
  ['united states of america', 'US'],
]);

/**
 * The emails and phone numbers a page states, in document order, each once, at most MAX_EMAILS
 * and MAX_PHONES; emails lower-cased, phone numbers in E.164. Found, never invented (see above).
 */
export function findContactSignals(document: Document, pageUrl: string): ContactSignals {
  const country = inferCountry(document, pageUrl);
  const emails = new Set<string>();
  const phones = new Set<string>();
  const addEmail = (email: string | null) => {
    if (email !== null && emails.size < MAX_EMAILS) emails.add(email);
  };
  const addPhone = (phone: string | null) => {
    if (phone !== null && phones.size < MAX_PHONES) phones.add(phone);
  };

  let budget = PAGE_MAX_CHARS;
  // An element, or the text of a run of adjacent text nodes.
  const stack: (Element | string)[] = document.documentElement === null ? [] : [document.documentElement];
  while (stack.length > 0 && (emails.size < MAX_EMAILS || phones.size < MAX_PHONES)) {
    const item = stack.pop() as Element | string;
    if (typeof item === 'string') {
      const text = scannable(item, budget);
      budget -= text.length;
      if (emails.size < MAX_EMAILS) for (const email of emailsInText(text)) addEmail(email);
      for (const phone of phonesInText(text, country)) {
        if (phones.size >= MAX_PHONES) break;
        addPhone(phone);
      }
      continue;
    }
    const name = item.localName.toLowerCase();
    if (SKIPPED_ELEMENTS.has(name)) continue;
    if (name === 'a' || name === 'area') {
      const href = (item.getAttribute('href') ?? '').trim();
      if (href.length <= HREF_MAX_CHARS) {
        const scheme = href.slice(0, 7).toLowerCase();
        if (scheme === 'mailto:') for (const email of emailsInMailto(href.slice(7))) addEmail(email);
        else if (scheme.startsWith('tel:')) addPhone(phoneInTel(href.slice(4), country));
      }
    }
    const children = childItems(item);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as Element | string);
  }
  return { emails: [...emails], phoneNumbers: [...phones] };
}

/**
 * The country a page's unmarked national numbers belong to, or null when nothing says. In this
 * order, the most specific statement first: the country of a postal address (the first
 * `addressCountry` in the page's JSON-LD, then in its microdata: an ISO 3166-1 alpha-2 code, or a
 * country's name in English or in the page's language), then the page host's ccTLD (.de → DE,
 * .co.uk → GB; not the ccTLDs Google treats as generic, such as .io, .co, .me, .tv, .ai), then
 * the region of `<html lang>` (en-GB → GB), last because templates ship `en-US` wherever they go.
 */
export function inferCountry(document: Document, pageUrl: string): CountryCode | null {
  const language = pageLanguage(document);
  return addressCountry(document, language) ?? tldCountry(pageUrl) ?? langCountry(language);
}

/**
 * An element's child elements and texts, in order. Adjacent text nodes are one text, as in a
 * browser's DOM: linkedom splits a text at each character reference (`a&#64;b` is three nodes).
 */
function childItems(element: Element): (Element | string)[] {
  const items: (Element | string)[] = [];
  let text: string | null = null;
  for (let child = element.firstChild; child !== null; child = child.nextSibling) {
    if (child.nodeType === TEXT_NODE) {
      // Past NODE_MAX_CHARS nothing more is scanned, so nothing more is kept.
      if ((text ?? '').length <= NODE_MAX_CHARS) text = (text ?? '') + (child.nodeValue ?? '');
      continue;
    }
    if (text !== null) items.push(text);
    text = null;
    if (child.nodeType === ELEMENT_NODE) items.push(child as Element);
  }
  if (text !== null) items.push(text);
  return items;
}

/** The start of `text` that may be scanned: at most `budget` and NODE_MAX_CHARS, cut at a whitespace. */
function scannable(text: string, budget: number): string {
  const limit = Math.min(NODE_MAX_CHARS, budget);
  if (text.length <= limit) return text;
  let end = limit;
  while (end > 0 && !WHITESPACE.test(text.charAt(end))) end--;
  return text.slice(0, end);
}

/** The addresses in one text node. Linear: each `@` looks at most 65 characters back and 254 on. */
function* emailsInText(text: string): Generator<string> {
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && at - start <= LOCAL_MAX_CHARS && isLocalChar(text.charCodeAt(start - 1))) start--;
    let end = at + 1;
    while (end < text.length && end - at <= DOMAIN_MAX_CHARS + 1 && isDomainChar(text.charCodeAt(end))) end++;
    if (GLUED_BEFORE.test(text.slice(Math.max(0, start - 4), start))) continue;
    if (GLUED_AFTER.test(text.slice(end, end + 2))) continue;
    let domainEnd = end;
    while (domainEnd > at + 1 && (text[domainEnd - 1] === '.' || text[domainEnd - 1] === '-')) domainEnd--;
    const email = validEmail(text.slice(start, at), text.slice(at + 1, domainEnd));
    if (email !== null) yield email;
  }
}

/** ASCII letters, digits and `._%+-`: what a local part found in text is made of. */
function isLocalChar(code: number): boolean {
  return (
    isAsciiAlphanumeric(code) ||
    code === 0x2e ||
    code === 0x5f ||
    code === 0x25 ||
    code === 0x2b ||
    code === 0x2d
  );
}

function isDomainChar(code: number): boolean {
  return isAsciiAlphanumeric(code) || code === 0x2e || code === 0x2d;
}

function isAsciiAlphanumeric(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** The addresses of a mailto: URL's body (after the scheme). */
function emailsInMailto(body: string): string[] {
  const query = body.indexOf('?');
  const found: string[] = [];
  for (const part of (query === -1 ? body : body.slice(0, query)).split(',')) {
    const address = percentDecoded(part)?.trim() ?? '';
    const at = address.indexOf('@');
    if (at === -1 || address.indexOf('@', at + 1) !== -1) continue;
    const email = validEmail(address.slice(0, at), address.slice(at + 1));
    if (email !== null) found.push(email);
  }
  return found;
}

/** `local@domain` lower-cased when it is an address someone can be reached at; else null. */
function validEmail(local: string, domain: string): string | null {
  if (local.length === 0 || local.length > LOCAL_MAX_CHARS || domain.length > DOMAIN_MAX_CHARS) return null;
  const localPart = local.toLowerCase();
  const host = domain.toLowerCase();
  if (!LOCAL_PART.test(localPart)) return null;
  const labels = host.split('.');
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return null;
  if (!TLD.test(labels[labels.length - 1] as string)) return null;
  if (parseHost(host).isIcann !== true) return null;
  if (RESERVED_DOMAINS.some((reserved) => host === reserved || host.endsWith(`.${reserved}`))) return null;
  return `${localPart}@${host}`;
}

function percentDecoded(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

/** The number of a tel: URL's body (after the scheme), in E.164, when valid; else null. */
function phoneInTel(body: string, country: CountryCode | null): string | null {
  const decoded = percentDecoded(body);
  if (decoded === null) return null;
  const parameters = decoded.indexOf(';');
  const value = parameters === -1 ? decoded : decoded.slice(0, parameters);
  const number = parsePhoneNumberFromString(
    value,
    country === null ? undefined : { defaultCountry: country },
  );
  return number?.isValid() ? number.number : null;
}

/**
 * The valid phone numbers in one text, in E.164, found lazily. The finder sees one list item at
 * a time (the text between commas, semicolons and bars), since it would otherwise read
 * `555-0147, 212` as one number and its extension; the rules around a match see the whole text.
 */
function* phonesInText(text: string, country: CountryCode | null): Generator<string> {
  if (!HAS_DIGIT.test(text)) return;
  const options = country === null ? undefined : { defaultCountry: country };
  for (let start = 0; start < text.length; ) {
    let end = start;
    while (end < text.length && !LIST_SEPARATORS.includes(text.charAt(end))) end++;
    const item = text.slice(start, end);
    if (HAS_DIGIT.test(item)) {
      for (const found of searchPhoneNumbersInText(item, options)) {
        const match = { ...found, startsAt: start + found.startsAt, endsAt: start + found.endsAt };
        if (isPhoneNumberInText(match, text, country)) yield found.number.number;
      }
    }
    start = end + 1;
  }
}

/** Whether a match of the finder is a phone number and not an identifier, a date, a price... */
function isPhoneNumberInText(found: NumberFound, text: string, country: CountryCode | null): boolean {
  const raw = text.slice(found.startsAt, found.endsAt);
  const before = text.slice(Math.max(0, found.startsAt - CONTEXT_CHARS), found.startsAt);
  const after = text.slice(found.endsAt, found.endsAt + CONTEXT_CHARS);
  return (
    found.number.isValid() &&
    !NOT_PHONE_SHAPES.some((shape) => shape.test(raw)) &&
    !NOT_PHONE_BEFORE.some((context) => context.test(before)) &&
    !NOT_PHONE_AFTER.some((context) => context.test(after)) &&
    isNationalFormatAccepted(found, raw, country)
  );
}

/**
 * The parts of libphonenumber-js's metadata its typings leave out (source/metadata.js), needed
 * for the national-prefix rule its finder skips; the tests pin their behaviour.
 */
interface NumberFormatRule {
  pattern(): string;
  leadingDigitsPatterns(): string[];
  nationalPrefixIsMandatoryWhenFormattingInNationalFormat(): boolean;
}
interface NumberingPlanFormats {
  formats(): NumberFormatRule[];
}

const metadata = new Metadata();
const formatPatterns = new Map<string, RegExp>();

/**
 * Whether a number written in national format may be taken: it carries the national prefix when
 * its format requires one (Google libphonenumber's isNationalPrefixPresentIfRequired, part of
 * PhoneNumberMatcher's VALID leniency), and, written bare, it has NATIONAL_MIN_DIGITS at least.
 */
function isNationalFormatAccepted(found: NumberFound, raw: string, country: CountryCode | null): boolean {
  const number = found.number;
  if (country === null || PLUS_FIRST.test(raw)) return true;
  // Dialled with an international call prefix (00 44 ... on a German page).
  if (number.countryCallingCode !== getCountryCallingCode(country)) return true;
  // Something written before the national number: the national prefix, or the calling code.
  if (parseDigits(raw).indexOf(number.nationalNumber) > 0) return true;
  // The short numbers of small plans (Luxembourg, Niue, Ascension...) look like any year,
  // postal code or card group: written nationally and bare, they are not taken.
  if (number.nationalNumber.length < NATIONAL_MIN_DIGITS) return false;
  metadata.selectNumberingPlan(number.country ?? country);
  const plan = metadata.numberingPlan as unknown as NumberingPlanFormats;
  const format = plan.formats().find((rule) => formatMatches(rule, number.nationalNumber));
  return format === undefined || !format.nationalPrefixIsMandatoryWhenFormattingInNationalFormat();
}

/** libphonenumber's chooseFormatForNumber test: the last leading-digits pattern, then the whole pattern. */
function formatMatches(rule: NumberFormatRule, nationalNumber: string): boolean {
  const leading = rule.leadingDigitsPatterns();
  const last = leading[leading.length - 1];
  if (last !== undefined && !cachedPattern(`^(?:${last})`).test(nationalNumber)) return false;
  return cachedPattern(`^(?:${rule.pattern()})$`).test(nationalNumber);
}

function cachedPattern(source: string): RegExp {
  let pattern = formatPatterns.get(source);
  if (pattern === undefined) {
    pattern = new RegExp(source);
    formatPatterns.set(source, pattern);
  }
  return pattern;
}

/** `<html lang>` as a locale (`_` taken for `-`), or null when absent or malformed. */
function pageLanguage(document: Document): Intl.Locale | null {
  const lang = document.documentElement?.getAttribute('lang')?.trim().replaceAll('_', '-') ?? '';
  if (lang === '') return null;
  try {
    return new Intl.Locale(lang);
  } catch {
    return null;
  }
}

function langCountry(language: Intl.Locale | null): CountryCode | null {
  return language?.region === undefined ? null : countryFromCode(language.region);
}

function tldCountry(pageUrl: string): CountryCode | null {
  if (!URL.canParse(pageUrl)) return null;
  const host = parseHost(new URL(pageUrl).hostname);
  if (host.isIp || host.isIcann !== true || host.publicSuffix === null) return null;
  const tld = host.publicSuffix.slice(host.publicSuffix.lastIndexOf('.') + 1);
  return tld.length === 2 && !GENERIC_CCTLDS.has(tld) ? countryFromCode(tld) : null;
}

function countryFromCode(code: string): CountryCode | null {
  const upper = code.toUpperCase();
  const country = upper === 'UK' ? 'GB' : upper;
  return isSupportedCountry(country) ? country : null;
}

/** The first postal address's country: JSON-LD, then microdata. */
function addressCountry(document: Document, language: Intl.Locale | null): CountryCode | null {
  // Every value json-ld.ts read: no more than it parsed, no deeper than its bounds.
  for (const value of readJsonLd(document).values) {
    // Depth first, in the order the page wrote things, without recursion; only objects and arrays
    // are stacked.
    const stack: unknown[] = [value];
    while (stack.length > 0) {
      const item = stack.pop();
      if (item === null || typeof item !== 'object') continue;
      const values = Array.isArray(item) ? item : Object.values(item);
      if (!Array.isArray(item) && 'addressCountry' in item) {
        const stated = item.addressCountry;
        const name = isRecord(stated) ? stated.name : stated;
        const country = typeof name === 'string' ? countryFromName(name, language) : null;
        if (country !== null) return country;
      }
      for (let i = values.length - 1; i >= 0; i--) {
        const child = values[i];
        if (child !== null && typeof child === 'object') stack.push(child);
      }
    }
  }
  for (const element of Array.from(document.querySelectorAll('[itemprop~="addressCountry"]'))) {
    const stated = element.getAttribute('content') ?? element.textContent ?? '';
    const country = countryFromName(stated, language);
    if (country !== null) return country;
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A country from how an address states it: an alpha-2 code, or a name in English or the page's language. */
function countryFromName(stated: string, language: Intl.Locale | null): CountryCode | null {
  const value = stated.trim().replace(/\s+/g, ' ').toLowerCase();
  if (value === '' || value.length > COUNTRY_NAME_MAX_CHARS) return null;
  if (/^[a-z]{2}$/.test(value)) return countryFromCode(value);
  return (
    COUNTRY_ALIASES.get(value) ??
    countryNames('en').get(value) ??
    (language === null ? undefined : countryNames(language.language).get(value)) ??
    null
  );
}

const namesByLanguage = new Map<string, ReadonlyMap<string, CountryCode>>();

/** Lower-cased country names in `language` (CLDR, through Intl.DisplayNames); empty if unknown. */
function countryNames(language: string): ReadonlyMap<string, CountryCode> {
  const cached = namesByLanguage.get(language);
  if (cached !== undefined) return cached;
  const names = new Map<string, CountryCode>();
  // Only languages Intl knows are cached, so that page-chosen tags cannot grow the cache.
  if (Intl.DisplayNames.supportedLocalesOf([language]).length === 0) return names;
  const display = new Intl.DisplayNames([language], { type: 'region', fallback: 'none' });
  for (const country of getCountries()) {
    const name = display.of(country);
    if (name !== undefined) names.set(name.toLowerCase(), country);
  }
  namesByLanguage.set(language, names);
  return names;
}
