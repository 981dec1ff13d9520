import { invalidParam, WebcapError } from '../../errors.js';
import type { ExtractorPool } from '../extractors/pool.js';
import { ANSWER_LIMITS, type RuleField } from './rules.js';
import type { FieldSchema } from './schema/check-schema.js';
import type { SchemaModel } from './schema/model-extract.js';

/** How a caller asks for structured data: selector rules, or a JSON Schema with an optional prompt. */
export type ExtractBy =
  | { readonly kind: 'rules'; readonly rules: readonly RuleField[] }
  | { readonly kind: 'schema'; readonly schema: FieldSchema; readonly prompt: string | null };

export interface ExtractDeps {
  readonly extractor: Pick<ExtractorPool, 'run'>;
  /** The operator's model (ANALYZER=openai) fills schemas; null: the built-in extractor does. */
  readonly schemaModel: SchemaModel | null;
}

/** What an extraction answers: the fields asked for, and what was missing or cut. */
export interface Extracted {
  readonly data: Record<string, unknown>;
  readonly warnings: string[];
}

/** A rendered page as extraction reads it. */
export interface ExtractPage {
  readonly html: string;
  readonly pageUrl: string;
}

/**
 * The structured data of a rendered page (docs/extract.md), for /v1/extract and for the `json`
 * format of content and crawls: rules are matched in an extractor process; a schema is filled by
 * the operator's model, its answer checked against the schema there, or without one by the
 * built-in extractor. A selector or schema the extractor refuses is a 400 naming it; an answer
 * past ANSWER_LIMITS a 400 naming extract_rules; a model that fails its schema twice a 502.
 */
export async function extractData(deps: ExtractDeps, page: ExtractPage, by: ExtractBy): Promise<Extracted> {
  if (by.kind === 'rules') {
    const output = await deps.extractor.run('extract-rules', { ...page, fields: by.rules });
    if (output.ok) return { data: output.data, warnings: output.warnings };
    if ('tooLarge' in output) {
      throw invalidParam(
        'extract_rules',
        `asks for more than ${ANSWER_LIMITS.answerChars} characters or ${ANSWER_LIMITS.answerValues} values of answer`,
      );
    }
    throw invalidParam(
      output.badSelector,
      `is not a CSS selector the page's DOM can match: ${output.message}`,
    );
  }
  const model = deps.schemaModel;
  const read = await deps.extractor.run('extract-schema', {
    ...page,
    schema: by.schema,
    withMarkdown: model !== null,
  });
  if (!read.ok) throw new WebcapError('bad_request', read.refused);
  if (model === null) return { data: read.data, warnings: read.warnings };
  const found = Object.values(read.data).some((value) => value !== null) ? read.data : null;
  return model.extract(
    { markdown: read.markdown ?? '', title: read.title, url: page.pageUrl, found },
    by.schema,
    by.prompt,
    async (answer) => {
      const checked = await deps.extractor.run('check-answer', { schema: by.schema, answer });
      if ('refused' in checked) throw new WebcapError('bad_request', checked.refused);
      return checked;
    },
  );
}

/** What the cache must know of an extraction beyond its parameters: the model that fills schemas. */
export function extractionIdentity(
  deps: Pick<ExtractDeps, 'schemaModel'>,
  by: ExtractBy | null,
): string | null {
  return by?.kind === 'schema' && deps.schemaModel !== null ? deps.schemaModel.identity : null;
}
