import { describe, expect, it } from 'vitest';
import { isRefusedNavigation } from './page-guards.js';

describe('isRefusedNavigation', () => {
  it.each([
    'http://example.com/',
    'https://example.com/a?b#c',
    'about:blank',
    'about:blank#top',
    'about:srcdoc',
    'data:text/html,<p>hi',
    'blob:https://example.com/0d3c1e4a-5f7b-4c1e-9b1a-2d7f3c8e9a10',
    'javascript:void(0)',
    'mailto:someone@example.com',
    'tel:+33123456789',
    'intent://scan/#Intent;scheme=zxing;end',
    'fb://profile/1',
  ])('lets the main frame go to %s', (url) => {
    expect(isRefusedNavigation(url)).toBe(false);
  });

  it.each([
    'file:///etc/passwd',
    'FILE:///etc/passwd',
    'chrome://settings/',
    'chrome-untrusted://terminal/',
    'devtools://devtools/bundled/inspector.html',
    'view-source:http://example.com/',
    'filesystem:http://example.com/temporary/x',
    'about:settings',
    'ftp://example.com/file',
    'not a url',
  ])('refuses %s', (url) => {
    expect(isRefusedNavigation(url)).toBe(true);
  });
});
