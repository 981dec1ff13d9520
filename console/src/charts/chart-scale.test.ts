import { describe, expect, it } from 'vitest';
import { axisTicks, niceCeiling, seriesOf, stackedBars } from './chart-scale.ts';

describe('niceCeiling', () => {
  it('rounds up to 1, 2, 2.5 or 5 times a power of ten', () => {
    expect([0, 1, 3, 7, 11, 21, 26, 99, 101, 0.3].map(niceCeiling)).toEqual([
      1, 1, 5, 10, 20, 25, 50, 100, 200, 0.5,
    ]);
  });
});

describe('axisTicks', () => {
  it('spaces ticks evenly, in whole steps when the top allows', () => {
    expect(axisTicks(20)).toEqual([0, 5, 10, 15, 20]);
    expect(axisTicks(10)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(axisTicks(25)).toEqual([0, 5, 10, 15, 20, 25]);
    expect(axisTicks(2)).toEqual([0, 1, 2]);
    expect(axisTicks(1)).toEqual([0, 1]);
    expect(axisTicks(0.5)).toEqual([0, 0.125, 0.25, 0.375, 0.5]);
  });
});

describe('stackedBars', () => {
  it('stacks the series from the bottom, scaled to the rounded top', () => {
    const bars = stackedBars([{ a: 5, b: 5 }, {}, { b: 20 }], ['a', 'b'], 300, 100, 0);
    expect(bars.top).toBe(20);
    expect(bars.columns.map((c) => c.total)).toEqual([10, 0, 20]);
    expect(bars.columns[0]?.rects).toEqual([
      { series: 'a', x: 0, y: 75, width: 100, height: 25, value: 5 },
      { series: 'b', x: 0, y: 50, width: 100, height: 25, value: 5 },
    ]);
    expect(bars.columns[1]?.rects).toEqual([]);
    expect(bars.columns[2]?.rects).toEqual([
      { series: 'b', x: 200, y: 0, width: 100, height: 100, value: 20 },
    ]);
  });

  it('leaves a gap around each bar and never divides by nothing', () => {
    const [rect] = stackedBars([{ a: 1 }], ['a'], 100, 10, 0.5).columns[0]?.rects ?? [];
    expect(rect).toMatchObject({ x: 25, width: 50 });
    expect(stackedBars([], ['a'], 100, 10)).toEqual({ top: 1, columns: [] });
  });
});

describe('seriesOf', () => {
  it('lists the series with values, known ones in order first', () => {
    expect(seriesOf([{ b: 1, z: 2, a: 0 }, { y: 1 }], ['a', 'b', 'c'])).toEqual(['b', 'y', 'z']);
  });
});
