import { describe, expect, it } from 'vitest';
import { newId, timeOrderedId } from './ids.js';

describe('ids', () => {
  it('makes distinct URL-safe ids with the prefix', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId('acc')));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^acc_[A-Za-z0-9_-]{16}$/);
  });

  it('makes time-ordered ids that sort by creation time, distinct within one millisecond', () => {
    const earlier = timeOrderedId('res', 1_790_000_000_000);
    const later = timeOrderedId('res', 1_790_000_000_001);
    expect(earlier < later).toBe(true);
    expect(earlier).toMatch(/^res_01a0c4506c00[A-Za-z0-9_-]{12}$/);
    const sameMs = new Set(Array.from({ length: 1000 }, () => timeOrderedId('res', 1_790_000_000_000)));
    expect(sameMs.size).toBe(1000);
  });
});
