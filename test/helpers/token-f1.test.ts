import { describe, expect, it } from 'vitest';
import { tokenF1 } from './token-f1.js';

describe('tokenF1', () => {
  it('is 1 for the same words in any order and spacing', () => {
    expect(tokenF1('the cat\n sat', 'Sat the CAT').f1).toBe(1);
  });

  it('counts repeated words as a multiset', () => {
    const s = tokenF1('the the the cat', 'the cat');
    expect(s.precision).toBe(0.5);
    expect(s.recall).toBe(1);
    expect(s.f1).toBeCloseTo(2 / 3);
  });

  it('is 0 with no overlap or an empty extraction', () => {
    expect(tokenF1('dog', 'cat').f1).toBe(0);
    expect(tokenF1('', 'cat')).toEqual({ precision: 0, recall: 0, f1: 0 });
  });

  it('scores two empty texts as a match', () => {
    expect(tokenF1('', '').f1).toBe(1);
  });
});
