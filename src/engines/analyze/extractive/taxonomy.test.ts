import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATEGORY_TAXONOMY } from './taxonomy.js';

describe('CATEGORY_TAXONOMY', () => {
  it('has 25-40 unique categories, each with weighted keywords', () => {
    expect(CATEGORY_TAXONOMY.length).toBeGreaterThanOrEqual(25);
    expect(CATEGORY_TAXONOMY.length).toBeLessThanOrEqual(40);
    expect(new Set(CATEGORY_TAXONOMY.map((r) => r.name)).size).toBe(CATEGORY_TAXONOMY.length);
    for (const row of CATEGORY_TAXONOMY) expect(Object.keys(row.keywords).length).toBeGreaterThanOrEqual(4);
  });

  it('is the table docs/analyze-extractive.md prints', () => {
    const docs = readFileSync(join(import.meta.dirname, '../../../../docs/analyze-extractive.md'), 'utf8');
    const section = docs.slice(
      docs.indexOf('## Taxonomy'),
      docs.indexOf('\n## ', docs.indexOf('## Taxonomy')),
    );
    const rows = section
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| Category'))
      .map((line) => line.slice(2, -2).split(' | '));
    expect(rows).toEqual(
      CATEGORY_TAXONOMY.map((row) => [
        row.name,
        row.kind,
        Object.entries(row.keywords)
          .map(([keyword, weight]) => `${keyword} ${weight}`)
          .join(', '),
      ]),
    );
  });
});
