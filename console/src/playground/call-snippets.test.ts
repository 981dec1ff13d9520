import { describe, expect, it } from 'vitest';
import { callSnippets, shellQuote } from './call-snippets.ts';
import { buildCall, type FormValues, playgroundOperations } from './openapi-form.ts';
import { DOCUMENT } from './sample-document.ts';

const BASE = 'http://127.0.0.1:8080';

function snippets(id: string, values: FormValues) {
  const operation = playgroundOperations(DOCUMENT).find((o) => o.id === id);
  if (operation === undefined) throw new Error(id);
  const built = buildCall(operation, values);
  if (!('call' in built)) throw new Error(built.error.message);
  return callSnippets(built.call, BASE);
}

describe('shellQuote', () => {
  it('leaves safe words bare and single-quotes the rest, quotes included', () => {
    expect(shellQuote('https://example.com/a')).toBe('https://example.com/a');
    expect(shellQuote('a&b')).toBe("'a&b'");
    expect(shellQuote("it's $HOME")).toBe(`'it'\\''s $HOME'`);
  });
});

describe('callSnippets', () => {
  it('makes a capture to a file with curl, the SDK and the CLI, the key always $WEBCAP_API_KEY', () => {
    const lines = snippets('GET /v1/capture', {
      url: 'https://example.com/?q=1&r=2',
      full_page: 'true',
      format: 'pdf',
    });
    expect(lines.curl).toBe(
      `curl -s -H "x-api-key: $WEBCAP_API_KEY" 'http://127.0.0.1:8080/v1/capture?url=https%3A%2F%2Fexample.com%2F%3Fq%3D1%26r%3D2&full_page=true&format=pdf' -o capture.pdf`,
    );
    expect(lines.sdk).toBe(
      [
        "import { Webcap } from '@webcap/sdk';",
        '',
        'const webcap = new Webcap({ baseUrl: "http://127.0.0.1:8080", apiKey: process.env.WEBCAP_API_KEY });',
        'const result = await webcap.capture({ url: "https://example.com/?q=1&r=2", full_page: true, format: "pdf" });',
      ].join('\n'),
    );
    expect(lines.cli).toBe(
      `npx webcap capture 'https://example.com/?q=1&r=2' --full-page --format pdf -o capture.pdf --server http://127.0.0.1:8080 --key "$WEBCAP_API_KEY"`,
    );
  });

  it('answers JSON for a capture in JSON or as a job, and submits a job with the SDK', () => {
    const json = snippets('GET /v1/capture', { url: 'https://e.com', response_type: 'json' });
    expect(json.curl).not.toContain(' -o ');
    expect(json.cli).not.toContain(' -o ');
    const job = snippets('GET /v1/capture', { url: 'https://e.com', is_async: 'true', full_page: 'false' });
    expect(job.cli).toContain('--no-full-page --async');
    expect(job.sdk).toContain(
      `await webcap.jobs.submit('capture', { url: "https://e.com", full_page: false });`,
    );
    expect(job.sdk).toContain('await webcap.jobs.wait(job.job_id);');
  });

  it('posts a JSON body and turns custom fields into the CLI’s --field', () => {
    const lines = snippets('POST /v1/analyze', {
      url: 'https://e.com',
      custom_response: '{"pricing":"the plans"}',
    });
    expect(lines.curl).toBe(
      `curl -s -H "x-api-key: $WEBCAP_API_KEY" -H 'content-type: application/json' http://127.0.0.1:8080/v1/analyze -d '{"url":"https://e.com","custom_response":{"pricing":"the plans"}}'`,
    );
    expect(lines.cli).toBe(
      `npx webcap analyze https://e.com --field 'pricing=the plans' --json --server http://127.0.0.1:8080 --key "$WEBCAP_API_KEY"`,
    );
    expect(lines.sdk).toContain(
      'await webcap.analyze({ url: "https://e.com", custom_response: {"pricing":"the plans"} });',
    );
  });
});
