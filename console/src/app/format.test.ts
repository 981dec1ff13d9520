import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatCount,
  formatDuration,
  formatSpan,
  formatTime,
  formatUptime,
  localInputToIso,
} from './format.ts';

describe('format', () => {
  it('writes times in UTC to the minute', () => {
    expect(formatTime('2026-11-28T10:04:59.123Z')).toBe('2026-11-28 10:04 UTC');
    expect(formatTime(null)).toBe('—');
    expect(localInputToIso('2026-11-28T10:04')).toBe('2026-11-28T10:04:00.000Z');
  });

  it('writes counts, durations, sizes and uptimes', () => {
    expect(formatCount(12345)).toBe('12,345');
    expect(formatCount(null)).toBe('∞');
    expect([850, 2400, 185_000].map(formatDuration)).toEqual(['850 ms', '2.4 s', '3 min 5 s']);
    expect(formatSpan('2026-01-01T00:00:00Z', '2026-01-01T00:00:01.5Z')).toBe('1.5 s');
    expect(formatSpan('2026-01-01T00:00:00Z', null)).toBe('—');
    expect(formatBytes(1_500_000)).toBe('1.5 MB');
    expect(formatUptime(3 * 86_400 + 4 * 3600)).toBe('3 d 4 h');
  });
});
