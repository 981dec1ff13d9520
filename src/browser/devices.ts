import type { Page, Protocol } from 'puppeteer-core';

/**
 * The spec's device names (GET /v1/capture `device`), in the spec's order; the schemas'
 * enum is built from this tuple.
 */
export const DEVICE_NAMES = [
  'iphone_14_pro_max',
  'iphone_14_pro',
  'iphone_13_pro_max',
  'iphone_13_mini',
  'iphone_12',
  'iphone_x',
  'ipad',
  'galaxy_s23_ultra',
  'galaxy_s23',
  'galaxy_s8',
  'galaxy_fold4',
  'pixel_7_pro',
  'pixel_6a',
  'pixel_5',
  'redmi_note_12_pro',
  'redmi_note_11',
  'huawei_p60_pro',
  'huawei_mate_50_pro',
] as const;

export type DeviceName = (typeof DEVICE_NAMES)[number];

export interface DeviceViewport {
  /** Full CSS screen width (not the visible area below the browser bars). */
  readonly width: number;
  /** Full CSS screen height. */
  readonly height: number;
  readonly deviceScaleFactor: number;
  readonly isMobile: boolean;
  readonly hasTouch: boolean;
  readonly isLandscape: boolean;
}

export interface DeviceProfile {
  readonly viewport: DeviceViewport;
  readonly userAgent: string;
  /** `navigator.platform` as the device's browser reports it. */
  readonly platform: string;
  /**
   * User-agent client hints (Sec-CH-UA-*, navigator.userAgentData) for Chrome versions that
   * send them (89+); absent for Safari and older Chrome, which have none.
   */
  readonly userAgentMetadata?: Protocol.Emulation.UserAgentMetadata;
}

interface AppleDevice {
  readonly kind: 'iPhone' | 'iPad';
  /** Points (CSS px) of the full screen and the UIKit scale factor, from Apple's HIG device sizes. */
  readonly screen: readonly [width: number, height: number];
  readonly scale: number;
  /** iOS version the device shipped with, as it appears in Safari's user agent (e.g. "16_0"). */
  readonly ios: string;
  /** Safari's `Version/` token of that iOS release. */
  readonly safari: string;
}

interface AndroidDevice {
  readonly kind: 'android';
  readonly screen: readonly [width: number, height: number];
  /** Android display density / 160, the devicePixelRatio Chrome reports on the device. */
  readonly scale: number;
  readonly model: string;
  /** Android version the device shipped with. */
  readonly android: string;
  /** The stable Chrome for Android of the device's launch month. */
  readonly chrome: string;
  /** Build id, which Chrome for Android still put in its user agent in 2017. */
  readonly build?: string;
}

/*
 * One table for every device (DESIGN.md §2 "Devices"). Sizes are the full screen, never the
 * visible area: puppeteer's KnownDevices mixes both (its iPhone 14 Pro Max is 430×739, the
 * area below Safari's bars), so captures from it would not match the device's screen.
 *
 * Apple: points and scale from the HIG's "Device screen sizes" table; points × scale is the
 * published pixel resolution (iPhone 14 Pro Max 430×932 @3 = 1290×2796).
 *
 * Android: scale is the density Chrome reports (Samsung S23 480 dpi = 3, Pixel 6a 420 dpi =
 * 2.625, ...), applied to the panel's full published resolution. Where pixels ÷ density is
 * not whole, the CSS size is rounded up as Chrome on the device and Chrome DevTools do
 * (Pixel 5: 1080×2340 / 2.75 = 392.7×850.9 → 393×851), so a capture covers the whole panel
 * and exceeds it by less than one CSS pixel (Chromium rounds css × scale to whole pixels).
 */
const DEVICES: Readonly<Record<DeviceName, AppleDevice | AndroidDevice>> = {
  // 1290×2796 @3, iOS 16 (September 2022).
  iphone_14_pro_max: { kind: 'iPhone', screen: [430, 932], scale: 3, ios: '16_0', safari: '16.0' },
  // 1179×2556 @3, iOS 16.
  iphone_14_pro: { kind: 'iPhone', screen: [393, 852], scale: 3, ios: '16_0', safari: '16.0' },
  // 1284×2778 @3, iOS 15 (September 2021).
  iphone_13_pro_max: { kind: 'iPhone', screen: [428, 926], scale: 3, ios: '15_0', safari: '15.0' },
  // iOS renders the mini at 375×812 @3 (1125×2436) and downsamples to its 1080×2340 panel
  // (UIScreen nativeScale 2.88); Safari reports 375×812 and devicePixelRatio 3, so do we.
  iphone_13_mini: { kind: 'iPhone', screen: [375, 812], scale: 3, ios: '15_0', safari: '15.0' },
  // 1170×2532 @3, iOS 14.1 (October 2020); Safari 14.0 until iOS 14.5.
  iphone_12: { kind: 'iPhone', screen: [390, 844], scale: 3, ios: '14_1', safari: '14.0' },
  // 1125×2436 @3, iOS 11 (November 2017).
  iphone_x: { kind: 'iPhone', screen: [375, 812], scale: 3, ios: '11_0', safari: '11.0' },
  // iPad (10th generation, October 2022): 1640×2360 @2, iPadOS 16.1. Its Safari asks for
  // desktop sites with a Mac user agent by default; we send the iPad one (Safari's "Request
  // Mobile Website"), so that sites can tell a tablet from a Mac.
  ipad: { kind: 'iPad', screen: [820, 1180], scale: 2, ios: '16_1', safari: '16.1' },
  // 1440×3088 at 600 dpi (WQHD+): 384×823.5 → 384×824.
  galaxy_s23_ultra: {
    kind: 'android',
    screen: [384, 824],
    scale: 3.75,
    model: 'SM-S918B',
    android: '13',
    chrome: '110.0.5481.153',
  },
  // 1080×2340 at 480 dpi.
  galaxy_s23: {
    kind: 'android',
    screen: [360, 780],
    scale: 3,
    model: 'SM-S911B',
    android: '13',
    chrome: '110.0.5481.153',
  },
  // 1440×2960 at 640 dpi (WQHD+), April 2017.
  galaxy_s8: {
    kind: 'android',
    screen: [360, 740],
    scale: 4,
    model: 'SM-G950F',
    android: '7.0',
    chrome: '58.0.3029.83',
    build: 'NRD90M',
  },
  // Folded, as the phone is carried: the 904×2316 cover screen at 420 dpi (344.4×882.3 →
  // 345×883). Unfolded (the 1812×2176 main screen) is a different device posture.
  galaxy_fold4: {
    kind: 'android',
    screen: [345, 883],
    scale: 2.625,
    model: 'SM-F936B',
    android: '12',
    chrome: '104.0.5112.97',
  },
  // 1440×3120 (QHD+) at 560 dpi: 411.4×891.4 → 412×892.
  pixel_7_pro: {
    kind: 'android',
    screen: [412, 892],
    scale: 3.5,
    model: 'Pixel 7 Pro',
    android: '13',
    chrome: '106.0.5249.126',
  },
  // 1080×2400 at 420 dpi: 411.4×914.3 → 412×915.
  pixel_6a: {
    kind: 'android',
    screen: [412, 915],
    scale: 2.625,
    model: 'Pixel 6a',
    android: '12',
    chrome: '103.0.5060.71',
  },
  // 1080×2340 at 440 dpi: 392.7×850.9 → 393×851 (as puppeteer's and DevTools' Pixel 5).
  pixel_5: {
    kind: 'android',
    screen: [393, 851],
    scale: 2.75,
    model: 'Pixel 5',
    android: '11',
    chrome: '86.0.4240.198',
  },
  // Redmi Note 12 Pro 5G (global 22101316G): 1080×2400 at MIUI's 440 dpi: 392.7×872.7 → 393×873.
  redmi_note_12_pro: {
    kind: 'android',
    screen: [393, 873],
    scale: 2.75,
    model: '22101316G',
    android: '12',
    chrome: '111.0.5563.116',
  },
  // Redmi Note 11 (global 2201117TG): 1080×2400 at 440 dpi.
  redmi_note_11: {
    kind: 'android',
    screen: [393, 873],
    scale: 2.75,
    model: '2201117TG',
    android: '11',
    chrome: '97.0.4692.98',
  },
  // Huawei P60 Pro (global MNA-LX9, EMUI 13 on Android 12): 1220×2700 at 480 dpi: 406.7×900 → 407×900.
  huawei_p60_pro: {
    kind: 'android',
    screen: [407, 900],
    scale: 3,
    model: 'MNA-LX9',
    android: '12',
    chrome: '111.0.5563.116',
  },
  // Huawei Mate 50 Pro (global DCO-LX9, EMUI 13 on Android 12): 1212×2616 at 480 dpi.
  huawei_mate_50_pro: {
    kind: 'android',
    screen: [404, 872],
    scale: 3,
    model: 'DCO-LX9',
    android: '12',
    chrome: '105.0.5195.136',
  },
};

/** Returns the device's full-screen portrait viewport, user agent and client hints; pure. */
export function deviceProfile(name: DeviceName): DeviceProfile {
  const device = DEVICES[name];
  const viewport: DeviceViewport = {
    width: device.screen[0],
    height: device.screen[1],
    deviceScaleFactor: device.scale,
    isMobile: true,
    hasTouch: true,
    isLandscape: false,
  };
  if (device.kind === 'android') return { viewport, ...chromeOnAndroid(device) };
  const os = device.kind === 'iPhone' ? 'iPhone; CPU iPhone OS' : 'iPad; CPU OS';
  return {
    viewport,
    platform: device.kind,
    userAgent:
      `Mozilla/5.0 (${os} ${device.ios} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) ` +
      `Version/${device.safari} Mobile/15E148 Safari/604.1`,
  };
}

/** Emulates the device in the page (viewport, scale, touch, user agent); call before navigating. */
export async function applyDevice(page: Page, name: DeviceName): Promise<void> {
  const profile = deviceProfile(name);
  await page.setViewport(profile.viewport);
  await page.setUserAgent({
    userAgent: profile.userAgent,
    platform: profile.platform,
    ...(profile.userAgentMetadata === undefined ? {} : { userAgentMetadata: profile.userAgentMetadata }),
  });
}

function chromeOnAndroid(device: AndroidDevice): Omit<DeviceProfile, 'viewport'> {
  const build = device.build === undefined ? '' : ` Build/${device.build}`;
  const userAgent =
    `Mozilla/5.0 (Linux; Android ${device.android}; ${device.model}${build}) AppleWebKit/537.36 ` +
    `(KHTML, like Gecko) Chrome/${device.chrome} Mobile Safari/537.36`;
  // 64-bit ARM Chrome reports "Linux armv81" (older 32-bit builds "Linux armv8l").
  const platform = 'Linux armv81';
  const major = device.chrome.split('.')[0] ?? '';
  // Client hints shipped in Chrome 89; sending them for an older Chrome would contradict its UA.
  if (Number(major) < 89) return { userAgent, platform };
  // Any GREASE brand is valid (https://wicg.github.io/ua-client-hints/#grease).
  const brands = [
    { brand: 'Chromium', version: major },
    { brand: 'Google Chrome', version: major },
    { brand: 'Not:A-Brand', version: '99' },
  ];
  return {
    userAgent,
    platform,
    userAgentMetadata: {
      brands,
      fullVersionList: brands.map((b) => (b.version === major ? { ...b, version: device.chrome } : b)),
      fullVersion: device.chrome,
      platform: 'Android',
      platformVersion: device.android,
      architecture: '',
      model: device.model,
      mobile: true,
      bitness: '',
      wow64: false,
    },
  };
}
