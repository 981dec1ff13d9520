/*
 * The arithmetic of the console's hand-made SVG charts: a rounded top for the value axis and
 * the rectangles of stacked bars, in the SVG's own units (the SVG scales to its box).
 */

/** The smallest of 1, 2, 2.5, 5 × 10^n at or above `value`; 1 for nothing to show. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) {
    const candidate = step * magnitude;
    // Rounding: 3 * 0.1 is 0.30000000000000004, which must not call for the next step.
    if (candidate >= value - magnitude * 1e-9) return Number(candidate.toPrecision(12));
  }
  return 10 * magnitude;
}

/**
 * Evenly spaced values from 0 to `top`: 4 or 5 whole steps when `top` divides so (counts read as
 * whole numbers), else 2 or 1, else 4 fractional steps.
 */
export function axisTicks(top: number): number[] {
  const steps = [4, 5, 2, 1].find((count) => Number.isInteger(top / count)) ?? 4;
  return Array.from({ length: steps + 1 }, (_, i) => Number(((top * i) / steps).toPrecision(12)));
}

export interface StackRect {
  readonly series: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly value: number;
}

export interface StackedBars {
  readonly top: number;
  /** One entry per column, bottom segment first. */
  readonly columns: ReadonlyArray<{ readonly total: number; readonly rects: readonly StackRect[] }>;
}

/**
 * Stacked bars for `columns` (each a value per series) in a plot of `width` × `height`: bars of
 * equal width with a gap of `gapRatio` of a slot, segments in `series` order from the bottom,
 * zero segments left out. The tallest column reaches `niceCeiling(max)` of the height at most.
 */
export function stackedBars(
  columns: ReadonlyArray<Readonly<Record<string, number>>>,
  series: readonly string[],
  width: number,
  height: number,
  gapRatio = 0.25,
): StackedBars {
  const totals = columns.map((column) => series.reduce((sum, name) => sum + (column[name] ?? 0), 0));
  const top = niceCeiling(Math.max(0, ...totals));
  const slot = columns.length === 0 ? 0 : width / columns.length;
  const barWidth = slot * (1 - gapRatio);
  return {
    top,
    columns: columns.map((column, index) => {
      let base = height;
      const rects: StackRect[] = [];
      for (const name of series) {
        const value = column[name] ?? 0;
        if (value <= 0) continue;
        const segment = (value / top) * height;
        base -= segment;
        rects.push({
          series: name,
          x: index * slot + (slot - barWidth) / 2,
          y: base,
          width: barWidth,
          height: segment,
          value,
        });
      }
      return { total: totals[index] ?? 0, rects };
    }),
  };
}

/** The series present in any column, in a fixed order first and then by name. */
export function seriesOf(
  columns: ReadonlyArray<Readonly<Record<string, number>>>,
  order: readonly string[],
): string[] {
  const present = new Set<string>();
  for (const column of columns)
    for (const [name, value] of Object.entries(column)) if (value > 0) present.add(name);
  const known = order.filter((name) => present.has(name));
  const others = [...present].filter((name) => !order.includes(name)).sort();
  return [...known, ...others];
}
