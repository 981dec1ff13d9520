import { describe, expect, it } from 'vitest';
import { furnitureFor } from './page-furniture.js';

describe('furnitureFor', () => {
  it('gives main content landmarks, the header among them, and comment and consent ids', () => {
    const furniture = furnitureFor('main-content');
    expect([...furniture.tags]).toEqual(['NAV', 'HEADER', 'FOOTER', 'ASIDE']);
    expect([...furniture.roles]).toEqual([
      'navigation',
      'banner',
      'contentinfo',
      'complementary',
      'dialog',
      'alertdialog',
    ]);
    expect([...furniture.ids]).toEqual([
      'comments',
      'disqus_thread',
      'respond',
      'cookie-consent',
      'cookie-banner',
      'onetrust-consent-sdk',
    ]);
    expect(furniture.words.size).toBe(0);
  });

  it('gives the digest landmarks but the header, the search role, and class and id words', () => {
    const furniture = furnitureFor('digest');
    expect([...furniture.tags]).toEqual(['NAV', 'FOOTER', 'ASIDE']);
    expect([...furniture.roles]).toEqual([
      'navigation',
      'contentinfo',
      'complementary',
      'dialog',
      'alertdialog',
      'search',
    ]);
    expect(furniture.ids.size).toBe(0);
    expect([...furniture.words]).toEqual([
      'cookie',
      'cookies',
      'consent',
      'gdpr',
      'sr',
      'visually',
      'modal',
      'popup',
    ]);
  });
});
