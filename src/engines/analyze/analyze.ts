import { type PageDeps, type PageOutcome, withLoadedPage } from '../../browser/load-page.js';
import type { CommonPageParams } from '../../browser/page-params.js';
import { serializePage } from '../../browser/serialize-page.js';
import { INVISIBLE_ATTRIBUTE } from '../content/invisible.js';
import type { ExtractorPool } from '../extractors/pool.js';
import type { Analyzer } from './analyzers/analyzer.js';
import type { AnalysisResult, AnalyzeParams } from './params.js';

export interface AnalyzeDeps {
  readonly page: PageDeps;
  readonly extractor: Pick<ExtractorPool, 'run'>;
  readonly analyzer: Analyzer;
  /** The serialized page taken from the browser is cut at this many characters. */
  readonly maxHtmlChars: number;
}

// Never present in a page: serializePage marks nothing without a selector.
const NO_MARK = 'data-webcap-unused';

/** The page options of an analyze call, without its analysis fields. */
function pageOptions({
  customFields: _fields,
  customPrompt: _prompt,
  ...page
}: AnalyzeParams): CommonPageParams {
  return page;
}

/**
 * A page's analysis (spec, Analysis result): the page pipeline renders it once at 1280 × 1024
 * with the caller's page options (waits, removals, request shaping, actions), an extractor process reads it
 * (digest, contact signals and, for a model, the main content as Markdown), then the configured
 * analyzer answers the fixed and custom fields. Contact signals come from the page alone,
 * whichever analyzer runs. A page that never finished loading is analyzed as it was, with a
 * warning. Throws what the pipeline throws (blocked, unreachable, timeout) and what the analyzer
 * throws.
 */
export async function analyze(
  deps: AnalyzeDeps,
  params: AnalyzeParams,
): Promise<PageOutcome<AnalysisResult>> {
  const rendered = await withLoadedPage(
    deps.page,
    {
      ...pageOptions(params),
      device: null,
      viewportWidth: null,
      viewportHeight: null,
      scaleFactor: null,
      selector: null,
      scrollDurationMs: null,
      removal: 'remove',
      // Read for its text: a page that fills itself in after load is read once it has.
      settleText: true,
    },
    async ({ page, finalUrl, warnings }) => ({
      ...(await serializePage(page, null, deps.maxHtmlChars, NO_MARK, INVISIBLE_ATTRIBUTE)),
      finalUrl,
      warnings,
    }),
  );
  const reading = await deps.extractor.run('read-page', {
    html: rendered.html,
    pageUrl: rendered.finalUrl,
    withMarkdown: deps.analyzer.needsMarkdown,
  });
  const answer = await deps.analyzer.analyze(
    { digest: reading.digest, markdown: reading.markdown },
    { customFields: params.customFields, customPrompt: params.customPrompt },
  );
  const custom: Record<string, string> = {};
  for (const name of Object.keys(params.customFields)) {
    Object.defineProperty(custom, name, {
      value: Object.hasOwn(answer.custom, name) ? answer.custom[name] : '',
      enumerable: true,
      writable: true,
    });
  }
  const warnings = [...rendered.warnings, ...reading.warnings];
  // An empty custom field is an answer too ("the page does not say"), but the caller who asked for
  // it should not have to guess whether it was looked for.
  for (const [name, value] of Object.entries(custom)) {
    if (value === '') warnings.push(`custom field ${name}: the page's main content does not say; left empty`);
  }
  const result: AnalysisResult = {
    ...answer.fields,
    emails: reading.contacts.emails,
    phoneNumbers: reading.contacts.phoneNumbers,
    ...(warnings.length > 0 ? { warnings } : {}),
    custom,
  };
  return { result, complete: rendered.warnings.length === 0 };
}
