import { type Static, type TObject, Type } from 'typebox';
import {
  type CommonPageParams,
  RESOURCE_TYPES,
  type ResourceType,
  WAIT_EVENTS,
  type WaitEvent,
} from '../browser/page-params.js';
import { invalidParam } from '../errors.js';
import { parseUpstreamProxy, type UpstreamProxy } from '../net/upstream-proxy.js';
import { type ActionInput, actionFields, actionsOf } from './actions.js';
import { Flag, flag } from './common-fields.js';
import { pageSourceFields, pageSourceOf } from './page-source.js';
import { requestShapingFields, requestShapingOf } from './request-shaping.js';

/** The result cache's parameters: `cacheOf` reads them. */
export const cacheFields = {
  cache: Type.Optional(Flag),
  cache_ttl: Type.Optional(Type.Integer({ minimum: 3600, maximum: 2_592_000, description: 'seconds' })),
};

/** The page parameters every engine that renders takes (spec, GET /v1/capture and GET /v1/content), and their parsing. */
export const pageFields = {
  ...pageSourceFields,
  remove_selectors: Type.Optional(
    Type.String({ maxLength: 4000, description: 'comma-separated CSS selectors' }),
  ),
  remove_ads: Type.Optional(Flag),
  remove_cookie_banners: Type.Optional(Flag),
  block_resources: Type.Optional(
    Type.String({ maxLength: 500, description: `comma-separated: ${RESOURCE_TYPES.join(', ')}` }),
  ),
  block_urls: Type.Optional(
    Type.String({ maxLength: 4000, description: 'comma-separated domains or patterns' }),
  ),
  delay: Type.Optional(Type.Number({ minimum: 0, maximum: 10, description: 'seconds' })),
  wait_for_selector: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  proxy: Type.Optional(Type.String({ maxLength: 2048, description: 'http, https or socks5 proxy URL' })),
  styles: Type.Optional(
    Type.String({ maxLength: 100_000, description: 'CSS applied to the page after it loads' }),
  ),
  hide_selectors: Type.Optional(
    Type.String({
      maxLength: 4000,
      description: 'comma-separated CSS selectors made invisible, their layout kept',
    }),
  ),
  ...cacheFields,
  ...requestShapingFields,
  ...actionFields,
};

export const WaitEventSchema = Type.Enum([...WAIT_EVENTS]);

/** wait_until of the v1 endpoints: one value or several (repeated, or comma-separated). */
export const WaitUntilList = Type.Array(Type.String({ maxLength: 200 }), { maxItems: 4 });

/** The cache a call asks for: cache=true with its lifetime (default 30 days), else null. */
export function cacheOf(input: {
  cache?: boolean | '1' | '0';
  cache_ttl?: number;
}): { ttlSeconds: number } | null {
  return flag(input.cache) ? { ttlSeconds: input.cache_ttl ?? 2_592_000 } : null;
}

/** The items of a comma-separated parameter, trimmed, empty ones dropped. */
function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** block_urls entries are matched against every request a page makes; their count is bounded too. */
const MAX_BLOCK_URLS = 100;

function blockUrls(raw: string | undefined): string[] {
  const items = list(raw);
  if (items.length > MAX_BLOCK_URLS) {
    throw invalidParam('block_urls', `has more than ${MAX_BLOCK_URLS} entries`);
  }
  return items;
}

function resourceTypes(raw: string | undefined): ResourceType[] {
  const items = list(raw);
  for (const item of items) {
    if (!(RESOURCE_TYPES as readonly string[]).includes(item)) {
      throw invalidParam(
        'block_resources',
        `has ${JSON.stringify(item)}; allowed: ${RESOURCE_TYPES.join(', ')}`,
      );
    }
  }
  return items as ResourceType[];
}

function waitEvents(raw: readonly string[] | string | undefined): WaitEvent[] {
  const items = (typeof raw === 'string' ? [raw] : (raw ?? [])).flatMap((value) => list(value));
  for (const item of items) {
    if (!(WAIT_EVENTS as readonly string[]).includes(item)) {
      throw invalidParam('wait_until', `has ${JSON.stringify(item)}; allowed: ${WAIT_EVENTS.join(', ')}`);
    }
  }
  return [...new Set(items)] as WaitEvent[];
}

/** The caller's proxy, checked for form here; its host is checked by the guard before the render. */
export function proxyOf(raw: string | undefined): UpstreamProxy | null {
  if (raw === undefined || raw.trim() === '') return null;
  return parseUpstreamProxy(raw.trim(), 'proxy');
}

/** wait_until as validated: one event (legacy) or several (v1). */
export type WaitUntilInput = readonly string[] | string;

/** The engine's page parameters from the fields of `pageFields` (wait_until one event or several). */
export function pageParamsOf(
  input: Static<TObject<typeof pageFields>> & ActionInput & { readonly wait_until?: WaitUntilInput },
): CommonPageParams {
  const actions = actionsOf(input);
  const source = pageSourceOf(input);
  return {
    ...source,
    removeSelectors: list(input.remove_selectors),
    removeAds: flag(input.remove_ads),
    removeCookieBanners: flag(input.remove_cookie_banners),
    blockResources: resourceTypes(input.block_resources),
    blockUrls: blockUrls(input.block_urls),
    delayMs: Math.round((input.delay ?? 0) * 1000),
    waitUntil: waitEvents(input.wait_until),
    waitForSelector: input.wait_for_selector ?? null,
    proxy: proxyOf(input.proxy),
    styles: input.styles === undefined || input.styles.trim() === '' ? null : input.styles,
    hideSelectors: list(input.hide_selectors),
    shaping: requestShapingOf(input, source.url),
    ...(actions === null ? {} : { actions }),
  };
}
