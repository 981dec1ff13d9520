import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { WebcapError } from '../../../errors.js';
import { type OpenAiConfig, openAiClient } from '../../model/openai-client.js';
import { answerSchema, answerValidator, describeErrors, normalizeAnswer } from './analysis-schema.js';
import type { Analyzer, AnalyzerAnswer } from './analyzer.js';
import { analysisMessages } from './openai-prompt.js';

export type { OpenAiConfig } from '../../model/openai-client.js';

/**
 * The `openai` analyzer: the analysis schema asked of the operator's model
 * (model/openai-client.ts), the answer validated, normalized and cut to its limits.
 */
export function openAiAnalyzer(config: OpenAiConfig, logger?: Logger): Analyzer {
  const client = openAiClient(config, 'analysis', logger);
  return {
    name: 'openai',
    identity: `openai/${config.baseUrl}/${config.model}/${config.output}/${config.maxInputTokens}/${config.temperature}`,
    needsMarkdown: true,
    async analyze(page, analysisRequest): Promise<AnalyzerAnswer> {
      const schema = answerSchema(analysisRequest.customFields);
      const validate = answerValidator(schema);
      const nonce = randomBytes(16).toString('hex');
      const answer = await client.structured({
        schemaName: 'page_analysis',
        schema,
        messages: (rejection) =>
          analysisMessages(page, analysisRequest, {
            nonce,
            mode: config.output,
            schema,
            maxInputTokens: config.maxInputTokens,
            rejection,
          }),
        check: (value) =>
          validate(value)
            ? {
                ok: true,
                value: normalizeAnswer(value as Record<string, unknown>, analysisRequest.customFields),
              }
            : { ok: false, why: describeErrors(validate) },
      });
      if (answer.ok) return answer.value;
      throw new WebcapError('internal', 'the analysis model failed', {
        cause: new Error(`the model's answer did not match the schema after a repair round: ${answer.why}`),
      });
    },
    close: () => client.close(),
  };
}
