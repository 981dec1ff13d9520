import { describe, expect, it } from 'vitest';
import { withoutMarkupText } from './markup-text.js';

describe('withoutMarkupText', () => {
  it('drops HTML tags and broken tag tails written as text', () => {
    expect(withoutMarkupText('before <img height="1" src="https://px.example/p.gif"/> after')).toBe(
      'before  after',
    );
    expect(withoutMarkupText('<video controls width="640"><source src="/a.mp4" type="video/mp4">')).toBe('');
    expect(withoutMarkupText('src="/a.mp4" type="video/mp4">')).toBe('');
    expect(withoutMarkupText('Watch it: type="video/mp4"/>')).toBe('Watch it:');
  });

  it('keeps prose with angle brackets that are not markup', () => {
    for (const text of [
      'x > 3 and y < 4',
      'List<T> and Map<K, V>',
      'a <name> placeholder',
      'a single <img> or a <ul> list of <figure>',
      'he said "yes" > no',
    ])
      expect(withoutMarkupText(text)).toBe(text);
  });
});
