import { describe, expect, it } from 'vitest';
import { wordTokens } from './word-tokens.js';

describe('wordTokens', () => {
  it('lower-cases and splits on anything but letters and digits', () => {
    expect(wordTokens("Don't STOP, 42 cafés—now!")).toEqual(['don', 't', 'stop', '42', 'cafés', 'now']);
  });
});
