import { describe, expect, it } from 'vitest';
import { parseIsoDate } from './iso-date.js';

describe('parseIsoDate', () => {
  it('reads dates and date-times, UTC unless an offset is given', () => {
    expect(parseIsoDate('2026-12-31', 'expires').toISOString()).toBe('2026-12-31T00:00:00.000Z');
    expect(parseIsoDate('2024-02-29T23:59:59.5Z', 'expires').toISOString()).toBe('2024-02-29T23:59:59.500Z');
    expect(parseIsoDate('2026-01-01T10:00', 'expires').toISOString()).toBe('2026-01-01T10:00:00.000Z');
    expect(parseIsoDate('2026-01-01T10:00:00+02:30', 'expires').toISOString()).toBe(
      '2026-01-01T07:30:00.000Z',
    );
    expect(parseIsoDate('2026-01-01T00:00:00-01:00', 'expires').toISOString()).toBe(
      '2026-01-01T01:00:00.000Z',
    );
  });

  it.each([
    '2020-02-30',
    '2023-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-04-31',
    '2026-01-01T24:00',
    '2026-01-01T10:60',
    '2026-01-01T10:00:61Z',
    '2026-01-01T10:00:00+24:00',
    '1969-12-31',
    '20261231',
    'March 7, 2026',
    '1',
    '',
    ' 2026-01-01',
    '2026-01-01Z',
    `2026-01-01T00:00:00.${'1'.repeat(50)}Z`,
  ])('refuses %j naming the parameter', (text) => {
    expect(() => parseIsoDate(text, 'expires')).toThrow(/^bad_request: expires must be an ISO 8601 date/);
  });
});
