/** The analyze engine's typed input and its result: what the HTTP edge produces after validation, and the `data` it answers. */
import { type Static, Type } from 'typebox';
import type { CommonPageParams } from '../../browser/page-params.js';
import type { AnalysisFields } from './extractive.js';

/**
 * The fixed members of the spec's Analysis result, and `warnings` (docs/analyze.md); a custom
 * field may not take one of these names.
 */
export const ANALYSIS_FIELDS = [
  'summary',
  'valueProposition',
  'keyFeatures',
  'categories',
  'useCases',
  'targetAudience',
  'emails',
  'phoneNumbers',
  'warnings',
] as const;

/** Bounds of custom_response and custom_prompt (docs/analyze.md). */
export const CUSTOM_LIMITS = Object.freeze({
  fields: 20,
  nameChars: 64,
  meaningChars: 500,
  promptChars: 2000,
  /** custom_response sent as JSON text. */
  jsonChars: 16_000,
});

/** Analyze takes the page options content takes, and its own fields. */
export interface AnalyzeParams extends CommonPageParams {
  /** Extra field name → what it means, in the caller's order; names checked at the edge (identifiers, no fixed field). */
  readonly customFields: Readonly<Record<string, string>>;
  /** The caller's extra instructions to a model analyzer; null when none. */
  readonly customPrompt: string | null;
}

/** The spec's Analysis result: the fixed fields, the contact signals, and one string per custom field. */
export interface AnalysisResult extends AnalysisFields {
  readonly emails: string[];
  readonly phoneNumbers: string[];
  /** What the caller should know about how the page was read; absent when nothing (the spec has no such field). */
  readonly warnings?: string[];
  readonly custom: Readonly<Record<string, string>>;
}

const Strings = Type.Array(Type.String());

/** The `data` of an analysis answer: the schema it is declared with and checked against, and its type. */
export const AnalysisDataSchema = Type.Object(
  {
    summary: Type.String(),
    valueProposition: Type.String(),
    keyFeatures: Strings,
    categories: Strings,
    useCases: Strings,
    targetAudience: Type.String(),
    emails: Type.Array(Type.String(), {
      description: 'found on the page (mailto: links and text), lower-cased',
    }),
    phoneNumbers: Type.Array(Type.String(), {
      description: 'found on the page (tel: links and text), E.164',
    }),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'present when the page was analyzed before it finished loading, was read other than whole (cut at its element budget, no root element), or a custom field was left empty',
      }),
    ),
  },
  {
    additionalProperties: Type.String({
      description: 'a custom_response field; empty when the page does not say',
    }),
  },
);

export type AnalysisData = Static<typeof AnalysisDataSchema>;

/** The `data` of the response: the fixed fields, then each custom field as a top-level member. */
export function analysisData(result: AnalysisResult): AnalysisData {
  const { custom, ...fixed } = result;
  const data: AnalysisData = { ...fixed };
  for (const [name, value] of Object.entries(custom)) {
    // Names are checked at the edge; a fixed field is never overwritten whatever reaches here.
    if (!Object.hasOwn(data, name))
      Object.defineProperty(data, name, { value, enumerable: true, writable: true });
  }
  return data;
}
