import type { ExtractorPool } from '../../extractors/pool.js';
import type { Analyzer } from './analyzer.js';

// Raised whenever the extractive method changes what it answers, so that cached analyses made by
// an earlier method are not served as this one's.
const METHOD_VERSION = 2;

/**
 * The built-in, deterministic analyzer (../extractive.ts), run in an extractor process: it reads
 * the digest only; custom_prompt has nothing to instruct and is ignored (docs/analyze.md).
 */
export function extractiveAnalyzer(extractor: Pick<ExtractorPool, 'run'>): Analyzer {
  return {
    name: 'extractive',
    identity: `extractive/${METHOD_VERSION}`,
    needsMarkdown: false,
    analyze: (page, request) =>
      extractor.run('extractive', { digest: page.digest, customFields: request.customFields }),
    close: async () => undefined,
  };
}
