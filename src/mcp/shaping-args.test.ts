import { describe, expect, it } from 'vitest';
import { analyzeRequest } from '../requests/analyze.js';
import { captureRequest } from '../requests/capture.js';
import { contentRequest } from '../requests/content.js';
import { apiParams } from './backend.js';
import { AnalyzeTool, CaptureTool, ContentTool, toolArgs } from './tools.js';

/* The MCP tools' request shaping reaches the engines as the REST endpoints' does. */
describe('MCP tools: request shaping', () => {
  const raw = {
    url: 'https://www.example.com/',
    headers: { 'X-Shaping': 'one' },
    cookies: 'session=abc',
    authorization: 'Bearer t',
    time_zone: 'Europe/Zurich',
    dark_mode: true,
    media_type: 'print',
  };
  const expected = {
    headers: { 'x-shaping': 'one' },
    cookies: [expect.objectContaining({ name: 'session', value: 'abc', domain: null })],
    authorization: 'Bearer t',
    timeZone: 'Europe/Zurich',
    darkMode: true,
    mediaType: 'print',
  };

  it('capture, content and analyze take the same shaping', () => {
    const capture = captureRequest(apiParams.capture(toolArgs(CaptureTool, raw)), 'v1', '');
    const content = contentRequest(apiParams.content(toolArgs(ContentTool, raw)), 'v1', '');
    const analyze = analyzeRequest(apiParams.analyze(toolArgs(AnalyzeTool, raw)));
    for (const params of [capture.params, content.params, analyze.params]) {
      expect(params.shaping).toMatchObject(expected);
    }
  });

  it('a refused header is the API’s 400 naming it', () => {
    const args = toolArgs(ContentTool, { url: raw.url, headers: { Host: 'x' } });
    expect(() => contentRequest(apiParams.content(args), 'v1', '')).toThrow(/headers header "Host"/);
  });
});
