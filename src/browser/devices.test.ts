import { describe, expect, it } from 'vitest';
import { DEVICE_NAMES, type DeviceName, deviceProfile } from './devices.js';

/**
 * Published pixel resolutions of each device's full screen (portrait), from the vendors'
 * specification pages, independent of the table under test.
 */
const PUBLISHED: Record<DeviceName, { pixels: [number, number]; platform: 'ios' | 'ipados' | 'android' }> = {
  iphone_14_pro_max: { pixels: [1290, 2796], platform: 'ios' },
  iphone_14_pro: { pixels: [1179, 2556], platform: 'ios' },
  iphone_13_pro_max: { pixels: [1284, 2778], platform: 'ios' },
  // Apple publishes the mini's panel as 1080×2340; iOS renders it at 1125×2436 and downsamples
  // by 2.88/3, and a web page sees 375×812 at devicePixelRatio 3. The rendered size is the one a
  // browser screenshot has.
  iphone_13_mini: { pixels: [1125, 2436], platform: 'ios' },
  iphone_12: { pixels: [1170, 2532], platform: 'ios' },
  iphone_x: { pixels: [1125, 2436], platform: 'ios' },
  ipad: { pixels: [1640, 2360], platform: 'ipados' },
  galaxy_s23_ultra: { pixels: [1440, 3088], platform: 'android' },
  galaxy_s23: { pixels: [1080, 2340], platform: 'android' },
  galaxy_s8: { pixels: [1440, 2960], platform: 'android' },
  galaxy_fold4: { pixels: [904, 2316], platform: 'android' },
  pixel_7_pro: { pixels: [1440, 3120], platform: 'android' },
  pixel_6a: { pixels: [1080, 2400], platform: 'android' },
  pixel_5: { pixels: [1080, 2340], platform: 'android' },
  redmi_note_12_pro: { pixels: [1080, 2400], platform: 'android' },
  redmi_note_11: { pixels: [1080, 2400], platform: 'android' },
  huawei_p60_pro: { pixels: [1220, 2700], platform: 'android' },
  huawei_mate_50_pro: { pixels: [1212, 2616], platform: 'android' },
};

/** Devices whose published pixels divide exactly by their density: the capture is the exact panel. */
const EXACT: readonly DeviceName[] = [
  'iphone_14_pro_max',
  'iphone_14_pro',
  'iphone_13_pro_max',
  'iphone_13_mini',
  'iphone_12',
  'iphone_x',
  'ipad',
  'galaxy_s23',
  'galaxy_s8',
  'huawei_mate_50_pro',
];

describe('device table', () => {
  it('has the spec’s 18 devices, each with a profile', () => {
    expect(DEVICE_NAMES).toHaveLength(18);
    expect(new Set(DEVICE_NAMES).size).toBe(18);
    expect([...DEVICE_NAMES].sort()).toEqual(Object.keys(PUBLISHED).sort());
  });

  it.each(DEVICE_NAMES)('%s: CSS screen × scale covers the published resolution', (name) => {
    const { viewport } = deviceProfile(name);
    const { pixels } = PUBLISHED[name];
    const css = [viewport.width, viewport.height];
    css.forEach((size, i) => {
      const published = pixels[i] ?? 0;
      expect(Number.isInteger(size)).toBe(true);
      // The CSS size is the published size ÷ scale rounded up: never short of the panel, never
      // a whole CSS pixel over it.
      expect(size).toBe(Math.ceil(published / viewport.deviceScaleFactor - 1e-9));
      expect(size * viewport.deviceScaleFactor).toBeGreaterThanOrEqual(published);
      expect(size * viewport.deviceScaleFactor - published).toBeLessThan(viewport.deviceScaleFactor);
    });
    if (EXACT.includes(name)) {
      expect(css.map((size) => size * viewport.deviceScaleFactor)).toEqual(pixels);
    }
  });

  it('gives iPhone 14 Pro Max its full 430×932 screen at scale 3 (1290×2796), not the visible area', () => {
    expect(deviceProfile('iphone_14_pro_max').viewport).toEqual({
      width: 430,
      height: 932,
      deviceScaleFactor: 3,
      isMobile: true,
      hasTouch: true,
      isLandscape: false,
    });
  });

  it.each(DEVICE_NAMES)('%s: mobile, touch, portrait', (name) => {
    const { viewport } = deviceProfile(name);
    expect(viewport).toMatchObject({ isMobile: true, hasTouch: true, isLandscape: false });
  });

  it.each(DEVICE_NAMES)('%s: the user agent names its platform', (name) => {
    const { userAgent, platform, userAgentMetadata } = deviceProfile(name);
    switch (PUBLISHED[name].platform) {
      case 'ios':
        expect(userAgent).toMatch(
          /^Mozilla\/5\.0 \(iPhone; CPU iPhone OS \d+_\d+ like Mac OS X\) .* Mobile\/\w+ Safari\//,
        );
        expect(userAgent).not.toContain('Chrome');
        expect(platform).toBe('iPhone');
        expect(userAgentMetadata).toBeUndefined();
        break;
      case 'ipados':
        expect(userAgent).toMatch(/^Mozilla\/5\.0 \(iPad; CPU OS \d+_\d+ like Mac OS X\) .* Safari\//);
        expect(platform).toBe('iPad');
        break;
      case 'android':
        expect(userAgent).toMatch(
          /^Mozilla\/5\.0 \(Linux; Android [\d.]+; [^;)]+\) .* Chrome\/[\d.]+ Mobile Safari\//,
        );
        expect(platform).toMatch(/^Linux armv8/);
        break;
    }
  });

  it('puts each Android model in its user agent and client hints', () => {
    const models: Partial<Record<DeviceName, string>> = {
      galaxy_s23_ultra: 'SM-S918B',
      galaxy_s23: 'SM-S911B',
      galaxy_s8: 'SM-G950F',
      galaxy_fold4: 'SM-F936B',
      pixel_7_pro: 'Pixel 7 Pro',
      pixel_6a: 'Pixel 6a',
      pixel_5: 'Pixel 5',
      redmi_note_12_pro: '22101316G',
      redmi_note_11: '2201117TG',
      huawei_p60_pro: 'MNA-LX9',
      huawei_mate_50_pro: 'DCO-LX9',
    };
    for (const [name, model] of Object.entries(models) as [DeviceName, string][]) {
      const profile = deviceProfile(name);
      expect(profile.userAgent).toContain(`; ${model}`);
      const chromeMajor = Number(/Chrome\/(\d+)/.exec(profile.userAgent)?.[1]);
      if (chromeMajor >= 89) {
        expect(profile.userAgentMetadata).toMatchObject({ platform: 'Android', model, mobile: true });
      } else {
        expect(profile.userAgentMetadata).toBeUndefined();
      }
    }
  });

  it('matches the iOS release of each iPhone’s launch', () => {
    const ios = (name: DeviceName) => /OS (\d+)_/.exec(deviceProfile(name).userAgent)?.[1];
    expect(ios('iphone_x')).toBe('11');
    expect(ios('iphone_12')).toBe('14');
    expect(ios('iphone_13_mini')).toBe('15');
    expect(ios('iphone_13_pro_max')).toBe('15');
    expect(ios('iphone_14_pro')).toBe('16');
    expect(ios('iphone_14_pro_max')).toBe('16');
    expect(ios('ipad')).toBe('16');
  });
});
