/**
 * Ad iframes and slots by the ids and classes ad servers and publishers' tags give them, hidden
 * (or removed) with remove_ads beside the filter lists' rules: EasyList turns its generic hiding
 * off on some sites (loopback and intranet hosts among them) and its network rules cannot catch
 * an ad served first-party, while these names mean an ad wherever they appear.
 */
export const AD_SLOT_SELECTORS = [
  // Google Publisher Tag and AdSense.
  'iframe[id^="google_ads_iframe"]',
  '[id^="google_ads_iframe"]',
  '[id^="google_ads_"]',
  'div[id^="div-gpt-ad"]',
  '[data-google-query-id]',
  'ins.adsbygoogle',
  '.adsbygoogle',
  '[data-ad-slot]',
  '[data-ad-unit]',
  'amp-ad',
  'amp-sticky-ad',
  // Publishers' own slot names.
  '.ad-slot',
  '.ad-unit',
  '.ad-container',
  '.advertisement',
  '.gpt-ad',
  '.dfp-ad',
  '[id^="dfp-ad-"]',
  'iframe[src*="doubleclick.net"]',
  'iframe[src*="googlesyndication.com"]',
  'iframe[id^="ad_iframe"]',
] as const;
