import type { AnalysisFields } from '../extractive.js';
import type { PageDigest } from '../page-digest.js';

/** What an analyzer reads of the rendered page. */
export interface AnalyzedPage {
  readonly digest: PageDigest;
  /** The main content as Markdown; null for an analyzer that does not read it (needsMarkdown false). */
  readonly markdown: string | null;
}

/** What the caller asks of the analysis beyond the fixed fields. */
export interface AnalysisRequest {
  readonly customFields: Readonly<Record<string, string>>;
  readonly customPrompt: string | null;
}

export interface AnalyzerAnswer {
  readonly fields: AnalysisFields;
  /** One string per requested custom field, '' when the page does not say. */
  readonly custom: Record<string, string>;
}

/**
 * One way of analysing a page; the operator's configuration picks one (ANALYZER). Contact
 * signals are not an analyzer's business: the engine finds them on the page whichever runs.
 */
export interface Analyzer {
  /** Named to callers in the x-webcap-analyzer response header. */
  readonly name: 'extractive' | 'openai';
  /**
   * Everything about the analyzer that changes its answers (model, endpoint, output mode,
   * method version): part of the cache key, so that a new model never serves an old answer.
   */
  readonly identity: string;
  /** Whether it reads the main content as Markdown. */
  readonly needsMarkdown: boolean;
  analyze(page: AnalyzedPage, request: AnalysisRequest): Promise<AnalyzerAnswer>;
  /** Lets go of connections it keeps. */
  close(): Promise<void>;
}
