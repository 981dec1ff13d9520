import { WebcapError } from '../../../errors.js';
import { documentBaseUrl } from '../../content/base-url.js';
import { extractMainContent } from '../../content/main-content.js';
import { htmlToMarkdown } from '../../content/markdown.js';
import { parsePage } from '../../content/parse-page.js';
import { type CheckedSchema, compileSchema, type FieldSchema } from './check-schema.js';
import { extractBySchema } from './extract-by-schema.js';
import { describeSchemaErrors } from './schema-errors.js';

/**
 * The schema extraction's CPU-bound parts, as extractor tasks (engines/extractors/tasks.ts):
 * compiling the caller's schema with ajv (~80 ms for 500 properties), reading the page, and
 * checking a model's answer, none of which may run on the thread that answers calls.
 */

export interface SchemaTaskInput {
  /** The rendered DOM, serialized by the browser. */
  readonly html: string;
  readonly pageUrl: string;
  /** A schema `readSchema` accepted at the edge. */
  readonly schema: FieldSchema;
  /** Whether a model reads the page: its main content as Markdown comes back too. */
  readonly withMarkdown: boolean;
}

/** A schema ajv refused after the edge accepted it: the 400's text, carried back as data. */
export interface SchemaRefused {
  readonly ok: false;
  readonly refused: string;
}

function compiled(schema: FieldSchema): CheckedSchema | SchemaRefused {
  try {
    return compileSchema(schema);
  } catch (error) {
    if (error instanceof WebcapError && error.code === 'bad_request' && error.detail !== undefined) {
      return { ok: false, refused: error.detail };
    }
    throw error;
  }
}

export interface SchemaTaskOutput {
  readonly ok: true;
  /** What the built-in extractor found: the answer without a model, the model's hints with one. */
  readonly data: Record<string, unknown>;
  readonly warnings: string[];
  /** The main content as Markdown; null when not asked for. */
  readonly markdown: string | null;
  readonly title: string | null;
}

/** One parse of the page: the built-in extractor's answer and, for a model, the main content. */
export function extractSchemaTask(input: SchemaTaskInput): SchemaTaskOutput | SchemaRefused {
  const checked = compiled(input.schema);
  if ('refused' in checked) return checked;
  const { document, warnings } = parsePage(input.html);
  const found = extractBySchema(document, input.pageUrl, checked);
  const title = document.title.trim() === '' ? null : document.title.trim();
  // After the facts are read: finding the main content takes the rest of the page apart.
  const markdown = input.withMarkdown
    ? htmlToMarkdown(
        extractMainContent(document, input.pageUrl).html,
        documentBaseUrl(document, input.pageUrl).href,
      )
    : null;
  return { ok: true, data: found.data, warnings: [...warnings, ...found.warnings], markdown, title };
}

export interface AnswerCheckInput {
  readonly schema: FieldSchema;
  readonly answer: unknown;
}

/** Whether a model's answer follows the caller's schema as given; what is wrong with it, if not. */
export function checkAnswerTask(
  input: AnswerCheckInput,
): { ok: true } | { ok: false; errors: string } | SchemaRefused {
  const checked = compiled(input.schema);
  if ('refused' in checked) return checked;
  const { validate } = checked;
  return validate(input.answer) ? { ok: true } : { ok: false, errors: describeSchemaErrors(validate.errors) };
}
