import { describe, expect, it } from 'vitest';
import { powerOfTwoChunks } from './statement-chunks.js';

describe('powerOfTwoChunks', () => {
  it('splits rows into power-of-two chunks, largest first, in order', () => {
    const rows = Array.from({ length: 45 }, (_, i) => i);
    const chunks = powerOfTwoChunks(rows, 16);
    expect(chunks.map((chunk) => chunk.length)).toEqual([16, 16, 8, 4, 1]);
    expect(chunks.flat()).toEqual(rows);
  });

  it('has no chunk for no rows', () => {
    expect(powerOfTwoChunks([], 64)).toEqual([]);
  });
});
