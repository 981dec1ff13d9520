import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestRuntime, type TestRuntime } from './helpers/runtime.js';

/*
 * Issue 32, item 5: a token pasted into the query of an operator's door under a name the
 * redaction list does not know (`?token=`) reached the access line.
 */
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

describe('the access line of an admin or metrics request', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await startTestRuntime('sqlite', { env: { METRICS_TOKEN } });
  });
  afterAll(() => t?.close());

  const accessLine = (url: string) =>
    t.logs
      .map((line) => JSON.parse(line))
      .find((entry) => entry.msg === 'request completed' && entry.url === url);

  it.each([
    [`/admin/v1/accounts?token=${ADMIN_TOKEN}`, '/admin/v1/accounts?token=[REDACTED]', 401],
    [`/admin/v1/accounts?${ADMIN_TOKEN}`, '/admin/v1/accounts?[REDACTED]', 401],
    [`/metrics?bearer=${METRICS_TOKEN}`, '/metrics?bearer=[REDACTED]', 401],
  ])('%s is refused and logged without its token', async (url, logged, status) => {
    const res = await t.runtime.app.inject({ url });
    expect(res.statusCode).toBe(status);
    expect(accessLine(logged)).toMatchObject({ statusCode: status });
    expect(t.logs.join('\n')).not.toContain(ADMIN_TOKEN);
    expect(t.logs.join('\n')).not.toContain(METRICS_TOKEN);
  });
});
