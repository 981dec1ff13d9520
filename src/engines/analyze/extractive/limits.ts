/** Caps on what the extractive analyzer returns and reads. */
export const EXTRACTIVE_LIMITS = Object.freeze({
  summaryChars: 600,
  summarySentences: 3,
  // Sentences of the main text considered for the summary.
  sentences: 400,
  valuePropositionChars: 400,
  keyFeatures: 8,
  featureChars: 140,
  categories: 3,
  useCases: 5,
  useCaseWords: 20,
  audienceWords: 20,
  customChars: 500,
});
