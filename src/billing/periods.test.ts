import { describe, expect, it } from 'vitest';
import { addMonths, billingPeriod, windowEnds, windowStarts } from './periods.js';

const d = (iso: string) => new Date(iso);

describe('billing periods', () => {
  it('runs monthly from the anchor', () => {
    expect(billingPeriod(d('2026-01-15T10:00:00Z'), d('2026-03-20T00:00:00Z'))).toEqual({
      start: d('2026-03-15T10:00:00Z'),
      end: d('2026-04-15T10:00:00Z'),
    });
    expect(billingPeriod(d('2026-01-15T10:00:00Z'), d('2026-03-15T09:59:59Z')).start).toEqual(
      d('2026-02-15T10:00:00Z'),
    );
    expect(billingPeriod(d('2026-01-15T10:00:00Z'), d('2026-03-15T10:00:00Z')).start).toEqual(
      d('2026-03-15T10:00:00Z'),
    );
  });

  it('clamps an anchor on the 31st to short months', () => {
    expect(addMonths(d('2026-01-31T00:00:00Z'), 1)).toEqual(d('2026-02-28T00:00:00Z'));
    expect(addMonths(d('2028-01-31T00:00:00Z'), 1)).toEqual(d('2028-02-29T00:00:00Z'));
    expect(billingPeriod(d('2026-01-31T00:00:00Z'), d('2026-03-01T00:00:00Z'))).toEqual({
      start: d('2026-02-28T00:00:00Z'),
      end: d('2026-03-31T00:00:00Z'),
    });
  });

  it('crosses year ends', () => {
    expect(billingPeriod(d('2025-12-10T00:00:00Z'), d('2027-01-05T00:00:00Z'))).toEqual({
      start: d('2026-12-10T00:00:00Z'),
      end: d('2027-01-10T00:00:00Z'),
    });
  });
});

describe('key quota windows', () => {
  it('are UTC day, ISO week from Monday, and calendar month', () => {
    // 2026-11-22 is a Sunday.
    expect(windowStarts(d('2026-11-22T23:59:59Z'))).toEqual({
      total: '',
      daily: '2026-11-22T00:00:00.000Z',
      weekly: '2026-11-16T00:00:00.000Z',
      monthly: '2026-11-01T00:00:00.000Z',
    });
    expect(windowStarts(d('2026-11-23T00:00:00Z')).weekly).toBe('2026-11-23T00:00:00.000Z');
    expect(windowEnds(d('2026-12-31T12:00:00Z'))).toEqual({
      daily: d('2027-01-01T00:00:00Z'),
      weekly: d('2027-01-04T00:00:00Z'),
      monthly: d('2027-01-01T00:00:00Z'),
    });
  });
});
