import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  type Config as AutoconsentConfig,
  type ContentScriptMessage,
  filterCompactRules,
  type IndexedCMPRuleset,
  type InitResponseMessage,
} from '@duckduckgo/autoconsent';
import type { Page } from 'puppeteer-core';

/** How the page's cookie banner went away, if it had one. */
export interface CookieBannerOutcome {
  /**
   * `autoconsent`: a CMP rule or autoconsent's heuristic refused consent (or hid the popup where
   * the CMP's rule is cosmetic); `fallback`: our generic pass hid banner-like overlays; null:
   * nothing was found to remove.
   */
  readonly handledBy: 'autoconsent' | 'fallback' | null;
  /** autoconsent's name for the rule that handled it (`Onetrust`, `HEURISTIC-REJECT`...). */
  readonly cmp: string | null;
  /** Elements the fallback hid. */
  readonly hiddenElements: number;
  /** Whether `overflow: hidden` (or a fixed body) on html/body was undone so the page scrolls. */
  readonly scrollUnlocked: boolean;
}

export interface CookieBannerSession {
  /**
   * Waits until autoconsent is done with the current document (at most `timeoutMs`), then hides
   * the consent bars still on screen (known CMP containers, generic cookie/consent bars, fixed
   * overlays that speak of cookies): all of them when autoconsent handled nothing, else what its
   * rule left showing; removes a leftover scroll lock in both cases. With `remove`, those bars
   * are taken out of the DOM (its HTML and text), as remove_selectors does. On a page without a
   * CMP it waits the whole timeout: autoconsent keeps watching the DOM for one.
   */
  settled(timeoutMs: number, removal?: 'hide' | 'remove'): Promise<CookieBannerOutcome>;
  /** Removes the injected script and binding from the page, for a page that is reused. */
  dispose(): Promise<void>;
}

// The page-side script reaches Node through this binding (page.exposeFunction).
const BINDING = '__webcapCookieBanners';

/*
 * autoconsent's settings (lib/types.ts). Its content script runs in the page's main world here
 * (evaluateOnNewDocument), so `isMainWorld` lets it call its eval snippets directly instead of
 * asking us to evaluate code. Heuristic mode tier1 clicks a popup's reject button, else its
 * acknowledge ("OK") button, never an accept-only one: we hide those instead (the fallback),
 * so that a capture never grants consent, even in a throwaway context.
 */
const AUTOCONSENT_CONFIG: AutoconsentConfig = {
  enabled: true,
  autoAction: 'optOut',
  disabledCmps: [],
  enablePrehide: true,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  detectRetries: 20,
  isMainWorld: true,
  prehideTimeout: 2000,
  enableHeuristicDetection: true,
  enablePopupMutationObserver: false,
  heuristicMode: 'tier1',
  heuristicPopupSearchTimeout: 100,
  visualTest: false,
  performanceLoggingEnabled: false,
  logs: {
    lifecycle: false,
    rulesteps: false,
    detectionsteps: false,
    evals: false,
    errors: false,
    messages: false,
    waits: false,
  },
};

/** Containers of known CMPs' and common consent banners, hidden by the fallback. */
const BANNER_SELECTORS = [
  '#onetrust-consent-sdk',
  '#CybotCookiebotDialog',
  '#CybotCookiebotDialogBodyUnderlay',
  '#usercentrics-root',
  '#didomi-host',
  '.qc-cmp2-container',
  '.fc-consent-root',
  '[id^="sp_message_container_"]',
  '#truste-consent-track',
  '.truste_overlay',
  '#cmpbox',
  '#cmpbox2',
  '#iubenda-cs-banner',
  '#cookiescript_injected',
  '.osano-cm-window',
  '.cky-consent-container',
  '.cmplz-cookiebanner',
  '#BorlabsCookieBox',
  '#moove_gdpr_cookie_info_bar',
  '#cookie-law-info-bar',
  '.cc-window',
  '#cookie-notice',
  '#cookie-banner',
  '.cookie-banner',
  '#cookieConsent',
  '#cookie-consent',
  '.cookie-consent',
  '#gdpr-cookie-message',
];

/**
 * A site's own consent bar by the words its names carry: matched only when its text is short
 * (GENERIC_BANNER_MAX_CHARS), so that a page wrapper named `has-cookie-banner` or a long
 * cookie policy is never taken for one.
 */
const GENERIC_BANNER_SELECTORS = [
  '[class*="cookie" i][class*="banner" i]',
  '[id*="cookie" i][id*="banner" i]',
  '[class*="cookie" i][class*="consent" i]',
  '[id*="cookie" i][id*="consent" i]',
  '[class*="cookie" i][class*="notice" i]',
  '[id*="cookie" i][id*="notice" i]',
  '[class*="cookie" i][class*="bar" i]',
  '[id*="cookie" i][id*="bar" i]',
  '[class*="consent" i][class*="banner" i]',
  '[id*="consent" i][id*="banner" i]',
  '[class*="gdpr" i]',
  '[aria-label*="cookie" i]',
  '[aria-label*="consent" i]',
  '[aria-describedby*="cookie" i]',
];

/** Longest text a generic consent bar or a fixed overlay speaking of cookies has (a policy page is far longer). */
const GENERIC_BANNER_MAX_CHARS = 1500;

interface Assets {
  /** Our message bridge followed by autoconsent's content script, for evaluateOnNewDocument. */
  readonly script: string;
  readonly rules: IndexedCMPRuleset;
}

/** autoconsent's content script and rules, read from the installed package. */
async function readAssets(): Promise<Assets> {
  const require = createRequire(import.meta.url);
  // The playwright bundle is not in the package's exports: it sits beside the main entry.
  const dist = path.dirname(require.resolve('@duckduckgo/autoconsent'));
  const [content, rules] = await Promise.all([
    fs.readFile(path.join(dist, 'autoconsent.playwright.js'), 'utf8'),
    fs.readFile(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8'),
  ]);
  // autoconsent calls window.autoconsentSendMessage and expects replies through
  // window.autoconsentReceiveMessage; the binding's return value carries the reply back to the
  // very frame that asked, so iframes (where some CMPs live) get their own rules.
  const bridge = `
    window.autoconsentSendMessage = (message) =>
      window.${BINDING}({ message, url: location.href, mainFrame: window === window.top })
        .then((reply) => (reply ? window.autoconsentReceiveMessage(reply) : undefined));`;
  return {
    script: `if (typeof window.${BINDING} === 'function') {${bridge}\n${content}\n}`,
    rules: JSON.parse(rules) as IndexedCMPRuleset,
  };
}

interface BridgePayload {
  readonly message: ContentScriptMessage;
  readonly url: string;
  readonly mainFrame: boolean;
}

function isBridgePayload(value: unknown): value is BridgePayload {
  if (typeof value !== 'object' || value === null) return false;
  const { message, url, mainFrame } = value as Record<string, unknown>;
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof (message as { type?: unknown }).type === 'string' &&
    typeof url === 'string' &&
    typeof mainFrame === 'boolean'
  );
}

/** Cookie banner removal (remove_cookie_banners), autoconsent's script and rules loaded. */
export interface CookieBannerRemover {
  /**
   * Injects autoconsent into every document the page loads from now on (call before navigating):
   * it detects the consent popup of ~800 known CMPs or by its heuristic, and refuses consent.
   * One session per page at a time: dispose it before enabling again on a reused page.
   */
  enable(page: Page): Promise<CookieBannerSession>;
}

/**
 * Loads cookie banner removal: reads autoconsent's content script and rules from the installed
 * package. The composition root loads it once and hands it to the page pipeline (PageDeps), as it
 * does the ad blocker; rejects when the package's files cannot be read.
 */
export async function loadCookieBannerRemover(): Promise<CookieBannerRemover> {
  const assets = await readAssets();
  return { enable: (page) => enableRemoval(page, assets) };
}

async function enableRemoval(page: Page, { script, rules }: Assets): Promise<CookieBannerSession> {
  // Per document: the CMP that autoconsent finished with, and whether it is done at all.
  let handledCmp: string | null = null;
  let finished = false;
  const waiters = new Set<() => void>();
  const finish = (cmp: string | null) => {
    if (cmp !== null) handledCmp = cmp;
    finished = true;
    for (const wake of waiters) wake();
    waiters.clear();
  };

  await page.exposeFunction(BINDING, (payload: unknown): InitResponseMessage | undefined => {
    if (!isBridgePayload(payload)) return undefined;
    const { message, url, mainFrame } = payload;
    switch (message.type) {
      case 'init':
        if (mainFrame) {
          // A new top document: whatever happened on the previous one no longer counts.
          handledCmp = null;
          finished = false;
        }
        return {
          type: 'initResp',
          config: AUTOCONSENT_CONFIG,
          // Only the generic rules and those whose URL pattern matches this frame, as the
          // library's own standalone build does: a fraction of the ~800.
          rules: { autoconsent: [], compact: filterCompactRules(rules, { url, mainFrame }) },
        };
      case 'autoconsentDone':
        finish(message.cmp);
        break;
      case 'optOutResult':
        // A successful intermediate step is followed by autoconsentDone; a failure ends it.
        if (!message.result) finish(null);
        break;
      case 'report':
        if (mainFrame && message.state.lifecycle === 'nothingDetected') finish(null);
        break;
    }
    return undefined;
  });
  const { identifier } = await page.evaluateOnNewDocument(script);

  return {
    async settled(timeoutMs, removal = 'hide') {
      if (!finished) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            waiters.delete(wake);
            resolve();
          }, timeoutMs);
          const wake = () => {
            clearTimeout(timer);
            resolve();
          };
          waiters.add(wake);
        });
      }
      const cmp = handledCmp;
      const cleanup = await page.evaluate(removeBanners, {
        selectors: BANNER_SELECTORS,
        genericSelectors: GENERIC_BANNER_SELECTORS,
        maxChars: GENERIC_BANNER_MAX_CHARS,
        remove: removal === 'remove',
        handled: cmp !== null,
      });
      if (cmp !== null) return { handledBy: 'autoconsent', cmp, ...cleanup };
      // Hidden by our pass alone: autoconsent found nothing, or a rule that left its bar showing.
      return { handledBy: cleanup.hiddenElements > 0 ? 'fallback' : null, cmp: null, ...cleanup };
    },
    async dispose() {
      await page.removeScriptToEvaluateOnNewDocument(identifier);
      await page.removeExposedFunction(BINDING);
    },
  };
}

/**
 * Runs in the page. Hides (or removes) the consent bars on screen: known banner containers,
 * generic cookie/consent bars by their names and fixed overlays that speak of cookies
 * (both with a short text), plus, once one went, the empty full-screen backdrops behind them;
 * then undoes a scroll lock (html/body `overflow: hidden`, or a fixed body). What autoconsent
 * already closed has no box and is left alone. Written without inner named functions: page
 * functions are sent as source text, and transpilers that keep function names would add helper
 * calls the page does not have.
 */
function removeBanners(options: {
  selectors: string[];
  genericSelectors: string[];
  maxChars: number;
  remove: boolean;
  /** autoconsent handled a banner, whose page may still be scroll-locked. */
  handled: boolean;
}): {
  hiddenElements: number;
  scrollUnlocked: boolean;
} {
  const hidden: HTMLElement[] = [];
  const shown = (element: Element): element is HTMLElement => {
    if (!(element instanceof HTMLElement) || hidden.some((outer) => outer.contains(element))) return false;
    const box = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
  };
  for (const element of document.querySelectorAll(options.selectors.join(','))) {
    if (shown(element)) hidden.push(element);
  }
  for (const element of document.querySelectorAll(`body ${options.genericSelectors.join(', body ')}`)) {
    if (!shown(element)) continue;
    const text = element.innerText.trim();
    if (text !== '' && text.length <= options.maxChars) hidden.push(element);
  }
  const fixed: HTMLElement[] = [];
  for (const element of document.querySelectorAll('body *')) {
    if (!shown(element)) continue;
    if (getComputedStyle(element).position !== 'fixed') continue;
    fixed.push(element);
    const text = element.innerText.slice(0, options.maxChars + 1);
    const hasButton =
      element.querySelector(
        'button, a[href], [role="button"], input[type="button"], input[type="submit"]',
      ) !== null;
    if (text.length <= options.maxChars && /\bcookies?\b|\bconsent\b|\bgdpr\b/i.test(text) && hasButton)
      hidden.push(element);
  }
  if (hidden.length > 0) {
    for (const element of fixed) {
      const box = element.getBoundingClientRect();
      const coversViewport = box.width >= innerWidth * 0.9 && box.height >= innerHeight * 0.9;
      if (coversViewport && element.innerText.trim() === '' && !hidden.includes(element))
        hidden.push(element);
    }
  }
  for (const element of hidden) {
    if (options.remove) element.remove();
    else element.style.setProperty('display', 'none', 'important');
  }
  let scrollUnlocked = false;
  // A page's own overflow is left alone where no banner was found: it may be how the page scrolls.
  for (const element of hidden.length > 0 || options.handled
    ? [document.documentElement, document.body]
    : []) {
    if (element === null) continue;
    const style = getComputedStyle(element);
    if (style.overflowY === 'hidden' || style.overflowX === 'hidden') {
      element.style.setProperty('overflow', 'visible', 'important');
      scrollUnlocked = true;
    }
    if (element === document.body && style.position === 'fixed') {
      element.style.setProperty('position', 'static', 'important');
      scrollUnlocked = true;
    }
  }
  return { hiddenElements: hidden.length, scrollUnlocked };
}
