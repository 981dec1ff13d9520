import { type Static, type TObject, Type } from 'typebox';
import type { CallSpec } from '../calls/call-spec.js';
import { ANALYSIS_FIELDS, CUSTOM_LIMITS } from '../engines/analyze/params.js';
import { invalidParam } from '../errors.js';
import { refuseScreenshots } from './actions.js';
import { asyncFields } from './common-fields.js';
import { cacheOf, pageFields, pageParamsOf, WaitUntilList } from './page.js';

/** The analyze parameters both /v1/analyze and the legacy /analyze take (spec, GET /v1/analyze), and the page options content takes. */
export const analyzeFields = {
  ...pageFields,
  wait_until: Type.Optional(WaitUntilList),
  custom_response: Type.Optional(
    Type.Unknown({
      description: `extra fields of the answer, name → meaning: a JSON object in a body, a JSON-stringified object in a query string; at most ${CUSTOM_LIMITS.fields} fields, names are identifiers of at most ${CUSTOM_LIMITS.nameChars} characters, meanings strings of at most ${CUSTOM_LIMITS.meaningChars}`,
    }),
  ),
  custom_prompt: Type.Optional(
    Type.String({
      maxLength: CUSTOM_LIMITS.promptChars,
      description: 'extra instructions for a model analyzer; cannot change the answer’s fields',
    }),
  ),
  ...asyncFields,
};

type AnalyzeInput = Static<TObject<typeof analyzeFields>>;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FIXED = new Set<string>(ANALYSIS_FIELDS.map((name) => name.toLowerCase()));
// Names every object already answers to; as a member they would shadow or replace what it inherits.
const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * custom_response as field name → meaning, in the caller's order. A JSON object (body), or its
 * JSON text (query string or form); an empty text is no custom field. Everything else is a 400
 * naming custom_response: invalid JSON, not an object, too many fields, a name that is not an
 * identifier or is (in any case) a fixed field of the result, a meaning that is not a string or too long.
 */
export function customFieldsOf(raw: unknown): Record<string, string> {
  let value = raw;
  if (raw === undefined) return {};
  if (typeof raw === 'string') {
    if (raw.trim() === '') return {};
    if (raw.length > CUSTOM_LIMITS.jsonChars) {
      throw invalidParam('custom_response', `is longer than ${CUSTOM_LIMITS.jsonChars} characters`);
    }
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalidParam('custom_response', 'is not valid JSON');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidParam('custom_response', 'must be a JSON object of field name → meaning');
  }
  const entries = Object.entries(value);
  if (entries.length > CUSTOM_LIMITS.fields) {
    throw invalidParam('custom_response', `has more than ${CUSTOM_LIMITS.fields} fields`);
  }
  const fields: Record<string, string> = {};
  for (const [name, meaning] of entries) {
    const shown = JSON.stringify(name.slice(0, CUSTOM_LIMITS.nameChars));
    if (name.length > CUSTOM_LIMITS.nameChars || !IDENTIFIER.test(name)) {
      throw invalidParam(
        'custom_response',
        `field ${shown} is not an identifier of at most ${CUSTOM_LIMITS.nameChars} characters (letters, digits, _)`,
      );
    }
    if (FIXED.has(name.toLowerCase()) || INHERITED.has(name)) {
      throw invalidParam('custom_response', `field ${shown} is a reserved name`);
    }
    if (typeof meaning !== 'string') {
      throw invalidParam('custom_response', `field ${shown} must have a string meaning`);
    }
    if (meaning.length > CUSTOM_LIMITS.meaningChars) {
      throw invalidParam(
        'custom_response',
        `field ${shown} has a meaning longer than ${CUSTOM_LIMITS.meaningChars} characters`,
      );
    }
    fields[name] = meaning.trim();
  }
  return fields;
}

/** The call of a validated analyze request, its engine parameters and cache. */
export function analyzeRequest(input: AnalyzeInput): CallSpec<'analyze'> {
  const prompt = input.custom_prompt?.trim() ?? '';
  const page = pageParamsOf(input);
  refuseScreenshots(page.actions, 'is not taken by analyze: its answer has no place for images');
  return {
    engine: 'analyze',
    params: {
      ...page,
      customFields: customFieldsOf(input.custom_response),
      customPrompt: prompt === '' ? null : prompt,
    },
    cache: cacheOf(input),
  };
}
