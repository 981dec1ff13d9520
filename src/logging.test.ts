import { describe, expect, it } from 'vitest';
import { redactRequestUrl } from './logging.js';

describe('redactRequestUrl', () => {
  it("keeps only the length of a caller's own page sent in the query", () => {
    expect(redactRequestUrl('/v1/capture?html=%3Cp%3Esecret%3C%2Fp%3E&format=png&Markdown=%23+x')).toBe(
      '/v1/capture?html=[23 characters]&format=png&Markdown=[5 characters]',
    );
  });

  it('replaces every credential parameter and keeps the rest', () => {
    expect(redactRequestUrl('/v1/capture?url=https://a.example&x_api_key=wc_test_abc&format=png')).toBe(
      '/v1/capture?url=https://a.example&x_api_key=[REDACTED]&format=png',
    );
    expect(redactRequestUrl('/capture?ACCESS_KEY=k1&s3_secret_key=s&s3_access_key_id=i')).toBe(
      '/capture?ACCESS_KEY=[REDACTED]&s3_secret_key=[REDACTED]&s3_access_key_id=[REDACTED]',
    );
    expect(redactRequestUrl('/capture?x%5Fapi%5Fkey=k')).toBe('/capture?x%5Fapi%5Fkey=[REDACTED]');
    expect(redactRequestUrl('/v1/files/abc.png?expires=1790000000&signature=s1g')).toBe(
      '/v1/files/abc.png?expires=1790000000&signature=[REDACTED]',
    );
  });

  it('replaces every query value of an admin or metrics request, whatever its name or case', () => {
    expect(redactRequestUrl('/admin/v1/accounts?token=adm1n-T0KEN&limit=5')).toBe(
      '/admin/v1/accounts?token=[REDACTED]&limit=[REDACTED]',
    );
    expect(redactRequestUrl('/ADMIN/v1/keys?adm1n-T0KEN')).toBe('/ADMIN/v1/keys?[REDACTED]');
    expect(redactRequestUrl('//admin?t=adm1n-T0KEN')).toBe('//admin?t=[REDACTED]');
    expect(redactRequestUrl('/metrics?bearer=m3trics-T0KEN')).toBe('/metrics?bearer=[REDACTED]');
    expect(redactRequestUrl('/metricsx?q=kept')).toBe('/metricsx?q=kept');
    expect(redactRequestUrl('/v1/capture?url=https://a.example/admin?x=1')).toBe(
      '/v1/capture?url=https://a.example/admin?x=1',
    );
  });

  it('replaces the token of a console invitation link in the path', () => {
    expect(redactRequestUrl('/console/invite/AbC_-123')).toBe('/console/invite/[REDACTED]');
    expect(redactRequestUrl('/console/api/invites/AbC_-123/accept?x=1')).toBe(
      '/console/api/invites/[REDACTED]/accept?x=1',
    );
    expect(redactRequestUrl('/console/api/invites')).toBe('/console/api/invites');
  });

  it('masks the credentials of a proxy URL but keeps its host, as the URL parser reads it', () => {
    const out = redactRequestUrl(
      `/v1/capture?proxy=${encodeURIComponent('http://user:hunter2@proxy.example:8080')}`,
    );
    expect(decodeURIComponent(out)).toBe('/v1/capture?proxy=http://[REDACTED]@proxy.example:8080/');
  });

  it.each([
    ['http://user:S3CR3T@proxy.example:8080'],
    ['http:user:S3CR3T@proxy.example:8080'],
    ['http:/user:S3CR3T@proxy.example:8080'],
    ['http:\\user:S3CR3T@proxy.example:8080'],
    ['HTTP://user:S3CR3T@proxy.example:8080'],
    ['\thttp://user:S3CR3T@proxy.example'],
    ['ht\ttp://user:S3CR3T@proxy.example'],
    ['https:///user:S3CR3T@proxy.example'],
    ['socks5://user:S3CR3T@proxy.example:1080'],
    ['http://:S3CR3T@proxy.example'],
    ['http://us%ZZer:S3CR3T@proxy.example'],
    ['http://user:S3CR3T@'],
  ])('drops the credentials of %j however the URL parser accepts it', (value) => {
    for (const name of ['proxy', 'storage_endpoint', 'url', 'PROXY', 'unknown_param']) {
      for (const encoded of [encodeURIComponent(value), value.replaceAll('@', '%40'), value]) {
        const out = redactRequestUrl(`/v1/capture?${name}=${encoded}`);
        expect(out).not.toContain('S3CR3T');
        expect(decodeURIComponent(out.replaceAll('%ZZ', ''))).not.toContain('S3CR3T');
      }
    }
  });

  it('leaves URLs without credentials alone, including malformed escapes', () => {
    expect(redactRequestUrl('/healthz')).toBe('/healthz');
    expect(redactRequestUrl('/a?b=%E0%A4%A&c')).toBe('/a?b=%E0%A4%A&c');
  });
});
