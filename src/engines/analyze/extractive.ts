import { categories } from './extractive/categories.js';
import { answerCustom } from './extractive/custom-fields.js';
import { keyFeatures } from './extractive/key-features.js';
import { pageSentences } from './extractive/sentences.js';
import { summarize } from './extractive/summary.js';
import { targetAudience } from './extractive/target-audience.js';
import { useCases } from './extractive/use-cases.js';
import { valueProposition } from './extractive/value-proposition.js';
import type { PageDigest } from './page-digest.js';

/**
 * The deterministic, offline analyzer: every field is picked or lifted from the page's own text
 * (docs/analyze-extractive.md describes each method, the taxonomy and the limits). Same digest in,
 * same answer out; work is linear in the digest, which is itself capped.
 */

/** The fixed fields of the spec's Analysis result that an analyzer writes (contact signals are found elsewhere). */
export interface AnalysisFields {
  summary: string;
  valueProposition: string;
  keyFeatures: string[];
  categories: string[];
  useCases: string[];
  targetAudience: string;
}

/**
 * The extractive analysis of `digest`: every field a string or string array (never null), ''
 * or [] when the page does not say; `custom` has one string per requested field name, the
 * best-matching passage or ''. Deterministic: no randomness, ties go to page order.
 */
export function analyzeExtractive(
  digest: PageDigest,
  customFields: Readonly<Record<string, string>>,
): { fields: AnalysisFields; custom: Record<string, string> } {
  const sentences = pageSentences(digest);
  return {
    fields: {
      summary: summarize(digest),
      valueProposition: valueProposition(digest),
      keyFeatures: keyFeatures(digest),
      categories: categories(digest),
      useCases: useCases(digest, sentences),
      targetAudience: targetAudience(digest),
    },
    custom: answerCustom(digest, customFields),
  };
}
