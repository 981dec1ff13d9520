/**
 * What extractor processes do (pool.ts, worker.ts): each task is a plain function of plain data,
 * CPU-bound, which must not run on the thread that answers calls.
 */
import { analyzeExtractive } from '../analyze/extractive.js';
import type { PageDigest } from '../analyze/page-digest.js';
import { type ReadPageInput, readPage } from '../analyze/read-page.js';
import { type ExtractInput, extractContent } from '../content/extract.js';
import { withoutInvisibleMarks } from '../content/invisible.js';
import { extractByRules, type RulesInput } from '../extract/rules.js';
import {
  type AnswerCheckInput,
  checkAnswerTask,
  extractSchemaTask,
  type SchemaTaskInput,
} from '../extract/schema/schema-task.js';
import { buildSiteMap, type SiteMapInput } from '../map/site-map.js';
import { markdownPage } from '../markdown-page/markdown-page.js';

export interface ExtractiveInput {
  readonly digest: PageDigest;
  readonly customFields: Readonly<Record<string, string>>;
}

export const TASKS = {
  /** The content engine's extraction: metadata, links, HTML, Markdown. */
  content: (input: ExtractInput) => extractContent(input),
  /** The extract engine's selector rules matched on a page as the browser serialized it (no render marks). */
  'extract-rules': (input: RulesInput) =>
    extractByRules({ ...input, html: withoutInvisibleMarks(input.html) }),
  /**
   * The extract engine's schema: the built-in extractor's answer (structured data is read hidden or
   * not), and the page's visible main content for a model (extractMainContent drops the rest).
   */
  'extract-schema': (input: SchemaTaskInput) => extractSchemaTask(input),
  /** A model's answer checked against the caller's schema. */
  'check-answer': (input: AnswerCheckInput) => checkAnswerTask(input),
  /** The analyze engine's reading of a page: digest, contact signals, main-content Markdown. */
  'read-page': (input: ReadPageInput) => readPage(input),
  /** The extractive analyzer over a digest. */
  extractive: (input: ExtractiveInput) => analyzeExtractive(input.digest, input.customFields),
  /** A caller's Markdown (the `markdown` input) as the HTML page every engine renders. */
  'markdown-page': (markdown: string) => markdownPage(markdown),
  /** The map engine's URLs (start page links and sitemaps) made into its body. */
  'site-map': (input: SiteMapInput) => buildSiteMap(input),
} as const;

export type TaskName = keyof typeof TASKS;
export type TaskInput<K extends TaskName> = Parameters<(typeof TASKS)[K]>[0];
export type TaskOutput<K extends TaskName> = ReturnType<(typeof TASKS)[K]>;
