/**
 * What extractor processes do (pool.ts, worker.ts): each task is a plain function of plain data,
 * CPU-bound, which must not run on the thread that answers calls.
 */
import { analyzeExtractive } from '../analyze/extractive.js';
import type { PageDigest } from '../analyze/page-digest.js';
import { type ReadPageInput, readPage } from '../analyze/read-page.js';
import { type ExtractInput, extractContent } from '../content/extract.js';
import { markdownPage } from '../markdown-page/markdown-page.js';

export interface ExtractiveInput {
  readonly digest: PageDigest;
  readonly customFields: Readonly<Record<string, string>>;
}

export const TASKS = {
  /** The content engine's extraction: metadata, links, HTML, Markdown. */
  content: (input: ExtractInput) => extractContent(input),
  /** The analyze engine's reading of a page: digest, contact signals, main-content Markdown. */
  'read-page': (input: ReadPageInput) => readPage(input),
  /** The extractive analyzer over a digest. */
  extractive: (input: ExtractiveInput) => analyzeExtractive(input.digest, input.customFields),
  /** A caller's Markdown (the `markdown` input) as the HTML page every engine renders. */
  'markdown-page': (markdown: string) => markdownPage(markdown),
} as const;

export type TaskName = keyof typeof TASKS;
export type TaskInput<K extends TaskName> = Parameters<(typeof TASKS)[K]>[0];
export type TaskOutput<K extends TaskName> = ReturnType<(typeof TASKS)[K]>;
