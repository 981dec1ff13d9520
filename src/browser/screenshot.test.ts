import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { imageSize } from './screenshot.js';

describe('imageSize', () => {
  it('reads a PNG from its header and other formats through sharp', async () => {
    const image = sharp({ create: { width: 321, height: 123, channels: 3, background: '#336699' } });
    for (const bytes of [
      await image.clone().png().toBuffer(),
      await image.clone().jpeg().toBuffer(),
      await image.clone().webp().toBuffer(),
    ]) {
      expect(await imageSize(bytes)).toEqual({ width: 321, height: 123 });
    }
  });
});
