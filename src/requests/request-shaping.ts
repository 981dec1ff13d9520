import { type Static, type TObject, Type } from 'typebox';
import {
  COOKIE_SAME_SITE,
  type Geolocation,
  MEDIA_TYPES,
  type RequestShaping,
  type ShapedCookie,
} from '../browser/request-shaping-params.js';
import { invalidParam } from '../errors.js';
import { Flag, flag } from './common-fields.js';
import { jsonText, parseJsonText } from './json-text.js';

/** Bounds of headers and cookies (docs/capture.md, "Request shaping"). */
export const SHAPING_LIMITS = Object.freeze({
  headers: 30,
  headerNameChars: 100,
  headerValueChars: 4096,
  cookies: 50,
  cookieNameChars: 256,
  cookieValueChars: 4096,
  /** headers or cookies as text (JSON, lines or `name=value; ...`). */
  textChars: 16_000,
});

// Header values, user agents and authorization: printable ASCII and tab, so no CR or LF can
// split a request (RFC 7230 §3.2 field-value, without obs-text).
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
const PRINTABLE = '^[\\t\\x20-\\x7e]*$';
// RFC 7230 §3.2.6 token: header and cookie names.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// RFC 6265 §4.1.1 leaves out more; Chromium accepts these, and none of them ends the cookie.
const COOKIE_VALUE = /^[\x20-\x3a\x3c-\x7e]*$/;
const COOKIE_PATH = /^\/[\x20-\x3a\x3c-\x7e]*$/;
const COOKIE_DOMAIN = /^\.?[a-z0-9.:[\]-]+$/;

/** Header names a caller may not set: the request's framing, hop-by-hop headers, and those with a parameter of their own. */
const REFUSED_HEADERS = new Map<string, string>([
  ['host', 'is set by the browser from the URL'],
  ['content-length', 'is set by the browser'],
  ['cookie', 'is refused: use cookies'],
  ['authorization', 'is refused: use authorization'],
  ['connection', 'is hop-by-hop'],
  ['keep-alive', 'is hop-by-hop'],
  ['transfer-encoding', 'is hop-by-hop'],
  ['te', 'is hop-by-hop'],
  ['trailer', 'is hop-by-hop'],
  ['upgrade', 'is hop-by-hop'],
]);

/** headers as an object of name → value. */
export const HeadersSchema = Type.Record(
  Type.String(),
  Type.String({ maxLength: SHAPING_LIMITS.headerValueChars }),
  { maxProperties: SHAPING_LIMITS.headers },
);

const CookieSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: SHAPING_LIMITS.cookieNameChars }),
    value: Type.String({ maxLength: SHAPING_LIMITS.cookieValueChars }),
    domain: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    secure: Type.Optional(Type.Boolean()),
    httpOnly: Type.Optional(Type.Boolean()),
    sameSite: Type.Optional(Type.Enum([...COOKIE_SAME_SITE])),
    expires: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 253_402_300_799, description: 'Unix seconds' }),
    ),
  },
  { additionalProperties: false },
);

/** cookies as a list of objects. */
export const CookiesSchema = Type.Array(CookieSchema, { maxItems: SHAPING_LIMITS.cookies });

/** The request-shaping parameters every rendering engine takes (docs/capture.md, "Request shaping"). */
export const requestShapingFields = {
  user_agent: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 512,
      pattern: PRINTABLE,
      description: 'the browser’s User-Agent',
    }),
  ),
  headers: Type.Optional(
    jsonText(
      HeadersSchema,
      SHAPING_LIMITS.textChars,
      `extra request headers, sent to the target's origin only: an object of name → value, or "Name: value" lines; at most ${SHAPING_LIMITS.headers}`,
    ),
  ),
  cookies: Type.Optional(
    jsonText(
      CookiesSchema,
      SHAPING_LIMITS.textChars,
      `cookies set for the target's host before it loads: a list of {name, value, domain?, path?, secure?, httpOnly?, sameSite?, expires?}, or "name=value; ..." text; at most ${SHAPING_LIMITS.cookies}`,
    ),
  ),
  authorization: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4096,
      pattern: PRINTABLE,
      description:
        "the Authorization header's value (Basic ..., Bearer ...), sent to the target's origin only",
    }),
  ),
  accept_language: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[A-Za-z0-9*, -]+$',
      description:
        'languages for Accept-Language (weighed by the browser) and navigator.language, as fr-CH,fr,en',
    }),
  ),
  time_zone: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9_+/-]+$',
      description: 'an IANA time zone, as Europe/Zurich',
    }),
  ),
  geolocation_latitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90, description: 'degrees' })),
  geolocation_longitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180, description: 'degrees' })),
  geolocation_accuracy: Type.Optional(
    Type.Number({ minimum: 0, maximum: 100_000, description: 'metres, default 0' }),
  ),
  dark_mode: Type.Optional(Flag),
  reduced_motion: Type.Optional(Flag),
  media_type: Type.Optional(Type.Enum([...MEDIA_TYPES])),
};

export type RequestShapingInput = Static<TObject<typeof requestShapingFields>>;

/** `Name: value` lines, blank lines skipped; a line without a colon is a 400. */
function headerLines(text: string): [string, string][] {
  const entries: [string, string][] = [];
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon === -1) throw invalidParam('headers', `line ${index + 1} is not "Name: value"`);
    entries.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  return entries;
}

/**
 * The caller's headers, names in lower case. Each is checked: a name that is no RFC 7230 token,
 * a refused name (Host, Content-Length, Cookie, Authorization, hop-by-hop, Proxy-*), a name given
 * twice or a value with a control character is a 400 naming the header, never quoting its value.
 */
function headersOf(raw: RequestShapingInput['headers']): Record<string, string> {
  if (raw === undefined) return {};
  const text = typeof raw === 'string' ? raw.trim() : null;
  const entries =
    text === null || text.startsWith('{')
      ? Object.entries(parseJsonText('headers', raw, HeadersSchema) ?? {})
      : headerLines(text);
  if (entries.length > SHAPING_LIMITS.headers) {
    throw invalidParam('headers', `has more than ${SHAPING_LIMITS.headers} headers`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of entries) {
    const shown = JSON.stringify(name.slice(0, SHAPING_LIMITS.headerNameChars));
    if (name.length > SHAPING_LIMITS.headerNameChars || !TOKEN.test(name)) {
      throw invalidParam('headers', `has ${shown}, which is not a header name (RFC 7230 token)`);
    }
    const lower = name.toLowerCase();
    const refused = lower.startsWith('proxy-') ? 'is refused: it is for proxies' : REFUSED_HEADERS.get(lower);
    if (refused !== undefined) throw invalidParam('headers', `header ${shown} ${refused}`);
    if (Object.hasOwn(headers, lower)) throw invalidParam('headers', `has header ${shown} twice`);
    if (value.length > SHAPING_LIMITS.headerValueChars || !HEADER_VALUE.test(value)) {
      throw invalidParam(
        'headers',
        `header ${shown} must have a value of at most ${SHAPING_LIMITS.headerValueChars} printable ASCII characters`,
      );
    }
    headers[lower] = value;
  }
  return headers;
}

/** `name=value; name2=value2` as cookies for the target's host. */
function cookiePairs(text: string): Static<typeof CookieSchema>[] {
  const cookies: Static<typeof CookieSchema>[] = [];
  for (const pair of text.split(';')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    if (eq === -1) throw invalidParam('cookies', 'must be "name=value; ..." pairs');
    cookies.push({ name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim() });
    if (cookies.length > SHAPING_LIMITS.cookies) {
      throw invalidParam('cookies', `has more than ${SHAPING_LIMITS.cookies} cookies`);
    }
  }
  return cookies;
}

/** Whether `host` is an IP address literal, which has no parent domain. */
function isIpHost(host: string): boolean {
  return host.startsWith('[') || /^[0-9.]+$/.test(host);
}

/**
 * The cookie's domain, lower case without its leading dot: the target's host or a parent of it
 * (a cookie for another site is a 400); null for a host-only cookie.
 */
function cookieDomain(name: string, domain: string | undefined, targetHost: string | null): string | null {
  if (domain === undefined) return null;
  const normal = domain.toLowerCase();
  const bare = normal.startsWith('.') ? normal.slice(1) : normal;
  const ok =
    COOKIE_DOMAIN.test(normal) &&
    targetHost !== null &&
    (bare === targetHost || (!isIpHost(targetHost) && bare.includes('.') && targetHost.endsWith(`.${bare}`)));
  if (!ok) {
    throw invalidParam(
      'cookies',
      `has cookie ${JSON.stringify(name)} for ${JSON.stringify(domain)}, which is not the target's host or a parent of it`,
    );
  }
  return bare;
}

/** The caller's cookies, each checked; a name, value, path or domain that cannot be set is a 400 naming the cookie, never quoting its value. */
function cookiesOf(raw: RequestShapingInput['cookies'], targetHost: string | null): ShapedCookie[] {
  if (raw === undefined) return [];
  const text = typeof raw === 'string' ? raw.trim() : null;
  const items =
    text === null || text.startsWith('[')
      ? (parseJsonText('cookies', raw, CookiesSchema) ?? [])
      : cookiePairs(text);
  return items.map((item) => {
    const shown = JSON.stringify(item.name.slice(0, SHAPING_LIMITS.cookieNameChars));
    if (item.name.length > SHAPING_LIMITS.cookieNameChars || !TOKEN.test(item.name)) {
      throw invalidParam('cookies', `has ${shown}, which is not a cookie name (RFC 7230 token)`);
    }
    if (item.value.length > SHAPING_LIMITS.cookieValueChars || !COOKIE_VALUE.test(item.value)) {
      throw invalidParam(
        'cookies',
        `cookie ${shown} must have a value of at most ${SHAPING_LIMITS.cookieValueChars} printable ASCII characters without ";"`,
      );
    }
    if (item.path !== undefined && !COOKIE_PATH.test(item.path)) {
      throw invalidParam('cookies', `cookie ${shown} must have a path that starts with "/", without ";"`);
    }
    if (item.sameSite === 'None' && item.secure !== true) {
      throw invalidParam('cookies', `cookie ${shown} has sameSite None, which needs secure`);
    }
    return {
      name: item.name,
      value: item.value,
      domain: cookieDomain(item.name, item.domain, targetHost),
      path: item.path ?? '/',
      secure: item.secure ?? false,
      httpOnly: item.httpOnly ?? false,
      sameSite: item.sameSite ?? null,
      expires: item.expires ?? null,
    };
  });
}

/** The time zone's canonical IANA name as Intl knows it (`utc` → `UTC`); an unknown one is a 400. */
function timeZoneOf(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: raw }).resolvedOptions().timeZone;
  } catch {
    throw invalidParam('time_zone', 'is not an IANA time zone name');
  }
}

/** Latitude and longitude both or neither; accuracy only with them. */
function geolocationOf(input: RequestShapingInput): Geolocation | null {
  const { geolocation_latitude: latitude, geolocation_longitude: longitude } = input;
  if (latitude === undefined && longitude === undefined) {
    if (input.geolocation_accuracy !== undefined) {
      throw invalidParam('geolocation_accuracy', 'needs geolocation_latitude and geolocation_longitude');
    }
    return null;
  }
  if (latitude === undefined)
    throw invalidParam('geolocation_latitude', 'is needed with geolocation_longitude');
  if (longitude === undefined)
    throw invalidParam('geolocation_longitude', 'is needed with geolocation_latitude');
  return { latitude, longitude, accuracy: input.geolocation_accuracy ?? 0 };
}

function optionalFlag(value: boolean | '1' | '0' | undefined): boolean | null {
  return value === undefined ? null : flag(value);
}

/**
 * The engine's request shaping from the validated fields, checked against the target `url`
 * (cookie domains); undefined when the caller shaped nothing, so that the call's parameters,
 * and its cache key, are those it had before these options existed.
 */
export function requestShapingOf(input: RequestShapingInput, url: string): RequestShaping | undefined {
  const targetHost = URL.canParse(url) ? new URL(url).hostname : null;
  const shaping: RequestShaping = {
    userAgent: input.user_agent ?? null,
    headers: headersOf(input.headers),
    authorization: input.authorization ?? null,
    cookies: cookiesOf(input.cookies, targetHost),
    acceptLanguage: input.accept_language?.trim() ?? null,
    timeZone: timeZoneOf(input.time_zone),
    geolocation: geolocationOf(input),
    darkMode: optionalFlag(input.dark_mode),
    reducedMotion: optionalFlag(input.reduced_motion),
    mediaType: input.media_type ?? null,
  };
  const shaped =
    Object.keys(shaping.headers).length > 0 ||
    shaping.cookies.length > 0 ||
    Object.entries(shaping).some(
      ([name, value]) => name !== 'headers' && name !== 'cookies' && value !== null,
    );
  return shaped ? shaping : undefined;
}
