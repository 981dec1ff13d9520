import type {
  AnalysisData,
  CaptureJson,
  ContentData,
  ExtractData,
  JobRecord,
  MapBody,
  WebsiteCrawlerData,
} from '@webcap/sdk';

/**
 * What a verb prints of an answer without --json: its useful part for stdout, and the lines that
 * go to stderr beside it (warnings, links of screenshot steps). One place, so that a call's
 * synchronous verb and `jobs wait` on it print the same.
 */
export interface AnswerText {
  readonly text: string;
  readonly stderr: readonly string[];
}

function warnings(given: readonly string[] | undefined): string[] {
  return (given ?? []).map((warning) => `webcap: warning: ${warning}`);
}

/** A capture's JSON answer: the object it wrote to the caller's bucket, else its hosted link. */
export function captureText(json: CaptureJson): AnswerText {
  return { text: json.s3_url ?? json.screenshot_url, stderr: warnings(json.warnings) };
}

/** Content: its Markdown, else the json format's data, else the whole data as JSON. */
export function contentText(data: ContentData): AnswerText {
  // With the json format and no Markdown, the data asked for is the answer's useful part.
  const json = data.markdown === undefined ? data.json : undefined;
  return {
    text:
      json === undefined
        ? (data.markdown ?? JSON.stringify(data, null, 2))
        : JSON.stringify(json.data, null, 2),
    stderr: [
      ...warnings(data.warnings),
      ...warnings(json?.warnings),
      ...(data.actions?.screenshots ?? []).map((link, index) => `actions screenshot ${index + 1}: ${link}`),
    ],
  };
}

/** An analysis: one `field: value` line per field, lists joined by `, `. */
export function analyzeText(data: AnalysisData): AnswerText {
  return {
    text: Object.entries(data)
      .filter(([name]) => name !== 'warnings')
      .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
      .join('\n'),
    stderr: warnings(data.warnings),
  };
}

/** An extraction: its data as JSON. */
export function extractText(answer: ExtractData): AnswerText {
  return { text: JSON.stringify(answer.data, null, 2), stderr: warnings(answer.warnings) };
}

/** The website crawler: the page source when asked for (a job's `data.html`), else the response in short. */
export function crawlerText(data: WebsiteCrawlerData & { readonly html?: string }): AnswerText {
  if (data.html !== undefined) return { text: data.html, stderr: [] };
  return {
    text: [
      `${data.statusCode} ${data.finalUrl}`,
      ...data.redirects.map((r) => `redirected from ${r.url} (${r.status})`),
      `content-type: ${data.contentType ?? 'none'}`,
      `size: ${data.size} bytes`,
    ].join('\n'),
    stderr: [],
  };
}

/** A map: the site's URLs, one a line. */
export function mapText(body: MapBody): AnswerText {
  return { text: body.links.map((link) => link.url).join('\n'), stderr: warnings(body.warnings) };
}

type Envelope<T> = { readonly data: T };

/** The endpoints of capture jobs, whose result is a capture's JSON answer. */
export const CAPTURE_ENDPOINTS: readonly string[] = ['/v1/capture', '/capture'];

/** A job's result (the body its synchronous call answers, as JSON) by the endpoint it was submitted to. */
const RESULT_TEXT: Readonly<Record<string, (result: never) => AnswerText>> = {
  ...Object.fromEntries(CAPTURE_ENDPOINTS.map((endpoint) => [endpoint, captureText])),
  '/v1/content': (result: Envelope<ContentData>) => contentText(result.data),
  '/content': (result: Envelope<ContentData>) => contentText(result.data),
  '/v1/analyze': (result: Envelope<AnalysisData>) => analyzeText(result.data),
  '/analyze': (result: Envelope<AnalysisData>) => analyzeText(result.data),
  '/v1/extract': extractText,
  '/v1/website/crawler': (result: Envelope<WebsiteCrawlerData>) => crawlerText(result.data),
  '/v1/map': mapText,
};

/** A job record in short: `ID  STATUS  ENDPOINT  created …`, then its error or its result as JSON. */
export function describeJob(job: JobRecord): string {
  const head = `${job.job_id}\t${job.status}\t${job.endpoint}\tcreated ${job.created_at}`;
  if (job.status === 'failed' && job.error !== null)
    return `${head}\nerror ${job.error.status}: ${job.error.error}`;
  if (job.status === 'completed') return `${head}\n${JSON.stringify(job.result, null, 2)}`;
  return head;
}

/**
 * What `jobs wait` prints without --json: a completed job's result as its verb prints it (the
 * Markdown of content, a capture's link), else the record in short.
 */
export function jobResultText(job: JobRecord): AnswerText {
  const resultText = RESULT_TEXT[job.endpoint];
  if (job.status !== 'completed' || resultText === undefined) return { text: describeJob(job), stderr: [] };
  return resultText(job.result as never);
}
