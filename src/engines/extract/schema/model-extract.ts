import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { WebcapError } from '../../../errors.js';
import { type OpenAiConfig, openAiClient } from '../../model/openai-client.js';
import type { FieldSchema } from './check-schema.js';
import type { SchemaExtraction } from './extract-by-schema.js';
import { extractionMessages } from './extraction-prompt.js';
import { settleAnswer } from './settle-answer.js';
import { strictSchema } from './strict-schema.js';

/**
 * A caller's JSON Schema filled by the operator's model (the analyzer's client and settings,
 * ANALYZE_OPENAI_*): the schema made strict (strict-schema.ts) and sent as structured output, or
 * in the prompt in the other output modes; the answer settled (settle-answer.ts) and validated
 * against the caller's schema as given, with one repair round told ajv's errors. A model's answer
 * never reaches the caller unvalidated: one that fails twice is a 502 naming the errors.
 */

/** Whether an answer follows the caller's schema as given: checked where ajv may run (an extractor process). */
export type AnswerCheck = (answer: unknown) => Promise<{ ok: true } | { ok: false; errors: string }>;

export interface SchemaModel {
  /** Everything that changes its answers (endpoint, model, output mode, budget): part of the cache key. */
  readonly identity: string;
  extract(
    page: ModelPage,
    schema: FieldSchema,
    prompt: string | null,
    check: AnswerCheck,
  ): Promise<SchemaExtraction>;
  close(): Promise<void>;
}

export interface ModelPage {
  /** The page's main content as Markdown. */
  readonly markdown: string;
  readonly title: string | null;
  readonly url: string;
  /** What the built-in extractor found for the schema (JSON-LD etc.), given to the model as hints; null when none. */
  readonly found: Record<string, unknown> | null;
}

// Bumped when the prompt or the strict schema change what a model answers, so no cached answer outlives it.
const METHOD_VERSION = 1;
/** The schema extractor on the operator's OpenAI-compatible endpoint (the analyzer's settings). */
export function openAiSchemaModel(config: OpenAiConfig, logger?: Logger): SchemaModel {
  const client = openAiClient(config, 'extraction', logger);
  return {
    identity: `openai-extract/${METHOD_VERSION}/${config.baseUrl}/${config.model}/${config.output}/${config.maxInputTokens}/${config.maxOutputTokens}/${config.temperature}`,
    async extract(page, given, prompt, check): Promise<SchemaExtraction> {
      const schema = strictSchema(given);
      const nonce = randomBytes(16).toString('hex');
      const answer = await client.structured({
        schemaName: 'extraction',
        schema,
        messages: (rejection) =>
          extractionMessages(page, {
            nonce,
            mode: config.output,
            schema,
            prompt,
            maxInputTokens: config.maxInputTokens,
            rejection,
          }),
        check: async (value) => {
          const settled = settleAnswer(value, given);
          const verdict = await check(settled.data);
          return verdict.ok ? { ok: true, value: settled } : { ok: false, why: verdict.errors };
        },
      });
      if (answer.ok) return answer.value;
      throw new WebcapError(
        'model_failed',
        `the model's answer did not follow the schema after a repair round: ${answer.why}`,
      );
    },
    close: () => client.close(),
  };
}
