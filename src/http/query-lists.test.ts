import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { splitWordLists, wordListParams } from './query-lists.js';

describe('query-string word lists', () => {
  const params = Type.Object({
    formats: Type.Optional(Type.Array(Type.Enum(['markdown', 'html']))),
    wait_until: Type.Optional(Type.Array(Type.String())),
    url: Type.String(),
  });

  it('are the lists of fixed words, not other lists', () => {
    expect(wordListParams(params)).toEqual(['formats']);
  });

  it.each([
    ['markdown', ['markdown']],
    ['markdown,html', ['markdown', 'html']],
    [' markdown , html ,', ['markdown', 'html']],
    ['["markdown","html"]', ['markdown', 'html']],
    [
      ['markdown,html', 'html'],
      ['markdown', 'html', 'html'],
    ],
    ['["markdown"', ['["markdown"']],
    ['', []],
  ])('%j reads as %j', (value, expected) => {
    const query: Record<string, unknown> = { formats: value, url: 'a,b' };
    splitWordLists(query, ['formats']);
    expect(query).toEqual({ formats: expected, url: 'a,b' });
  });

  it('leaves an absent list absent', () => {
    const query: Record<string, unknown> = { url: 'x' };
    splitWordLists(query, ['formats']);
    expect(query).toEqual({ url: 'x' });
  });
});
