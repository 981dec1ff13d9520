import { seededRandom } from './seeded-random.js';

/*
 * Percentile bootstrap intervals for the main-content scores: pages resampled with replacement,
 * the score recomputed on each resample. Seeded, so the same pages give the same interval in every
 * run and a difference between two runs is the extractor's, not the resampling's.
 */

export interface Interval {
  readonly low: number;
  readonly high: number;
}

const RESAMPLES = 1000;
const SEED = 0x5eed;

/** The 95 % percentile bootstrap interval of `score` over `items` (RESAMPLES resamples, fixed seed). */
export function bootstrapInterval<T>(items: readonly T[], score: (sample: readonly T[]) => number): Interval {
  if (items.length === 0) return { low: 0, high: 0 };
  const next = seededRandom(SEED);
  const scores: number[] = [];
  const sample: T[] = new Array(items.length);
  for (let r = 0; r < RESAMPLES; r++) {
    for (let i = 0; i < items.length; i++) sample[i] = items[Math.floor(next() * items.length)] as T;
    scores.push(score(sample));
  }
  scores.sort((a, b) => a - b);
  const at = (q: number) => scores[Math.min(scores.length - 1, Math.floor(q * scores.length))] as number;
  return { low: at(0.025), high: at(0.975) };
}
