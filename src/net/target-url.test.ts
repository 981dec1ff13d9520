import { describe, expect, it } from 'vitest';
import { WebcapError } from '../errors.js';
import { NetworkPolicy, parseAllowList } from './address-policy.js';
import { parseTargetUrl, redirectTarget } from './target-url.js';

const policy = new NetworkPolicy(parseAllowList('127.0.0.1/32:8081'));

function failure(attempt: () => unknown): WebcapError {
  try {
    attempt();
  } catch (error) {
    if (error instanceof WebcapError) return error;
    throw error;
  }
  throw new Error('expected a WebcapError');
}

describe('parseTargetUrl', () => {
  it('accepts http and https URLs with host names, unchecked until resolved', () => {
    expect(parseTargetUrl('https://Example.COM/a?b=1', policy)).toMatchObject({
      host: 'example.com',
      port: 443,
      ipLiteral: false,
    });
    expect(parseTargetUrl('http://localhost:3000/', policy)).toMatchObject({ host: 'localhost', port: 3000 });
    expect(parseTargetUrl('http://93.184.216.34/', policy)).toMatchObject({ port: 80, ipLiteral: true });
    expect(parseTargetUrl('http://[2606:4700::1111]:8443/', policy)).toMatchObject({
      host: '2606:4700::1111',
      port: 8443,
    });
  });

  it.each([
    ['file:///etc/passwd', 'file'],
    ['data:text/html,<b>x</b>', 'data'],
    ['javascript:alert(1)', 'javascript'],
    ['chrome://settings', 'chrome'],
    ['chrome-extension://abc/x.html', 'chrome-extension'],
    ['view-source:http://example.com/', 'view-source'],
    ['ftp://example.com/x', 'ftp'],
    ['gopher://127.0.0.1:6379/_INFO', 'gopher'],
    ['blob:http://example.com/uuid', 'blob'],
    ['ws://example.com/socket', 'ws'],
    ['wss://example.com/socket', 'wss'],
    ['about:blank', 'about'],
    ['dict://127.0.0.1:11211/stats', 'dict'],
  ])('refuses %s naming the parameter and the scheme', (raw, scheme) => {
    const error = failure(() => parseTargetUrl(raw, policy, 'query'));
    expect(error.code).toBe('bad_request');
    expect(error.detail).toBe(`query must be an http or https URL (got scheme ${scheme})`);
  });

  it.each([
    ['\\\\127.0.0.1\\share'],
    ['//127.0.0.1/x'],
    ['example.com'],
    ['http://'],
    ['http://1.2.3.4.5/'],
    ['http://999999999999/'],
    [''],
  ])('refuses %j as not an absolute URL', (raw) => {
    const error = failure(() => parseTargetUrl(raw, policy));
    expect(error.code).toBe('bad_request');
    expect(error.detail).toBe('url must be an absolute http or https URL');
  });

  // Each spelling is what a browser would connect to; WHATWG URL parses them all to the dotted quad.
  it.each([
    ['http://127.0.0.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://127.0.1/', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0x7f.0.0.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://127.000.000.001/', '127.0.0.1'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1'],
    ['http://\uff11\uff12\uff17.0.0.1/', '127.0.0.1'], // fullwidth digits
    ['http://127\u30020\u30020\u30021/', '127.0.0.1'], // ideographic full stops
    ['http://127.0.0.1.:8082/', '127.0.0.1'], // trailing dot
    ['http:\\\\127.0.0.1\\x', '127.0.0.1'],
    ['http://a@127.0.0.1/', '127.0.0.1'],
    ['http://allowed.example@127.0.0.1:8082/', '127.0.0.1'],
    ['http://allowed.example:8081@127.0.0.1/', '127.0.0.1'],
    ['http://0/', '0.0.0.0'],
    ['http://0.0.0.0/', '0.0.0.0'],
    ['http://[::1]/', '::1'],
    ['http://[0:0:0:0:0:0:0:1]/', '::1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1'],
    ['http://2852039166/', '169.254.169.254'],
    ['http://0xa9fea9fe/', '169.254.169.254'],
    ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254'],
    ['http://0251.0376.0251.0376/', '169.254.169.254'],
    ['http://169.254.43518/', '169.254.169.254'],
    ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe'],
    ['http://[2002:a9fe:a9fe::]/', '2002:a9fe:a9fe::'],
    ['http://[64:ff9b::a9fe:a9fe]/', '64:ff9b::a9fe:a9fe'],
    ['http://[64:ff9b::169.254.169.254]/', '64:ff9b::a9fe:a9fe'],
    ['http://[2001:0:4136:e378:8000:63bf:5601:5601]/', '2001:0:4136:e378:8000:63bf:5601:5601'],
    ['http://[fe80::1]/', 'fe80::1'],
    ['http://[fd00::1]/', 'fd00::1'],
    ['https://10.0.0.1/', '10.0.0.1'],
    ['https://172.16.0.1/', '172.16.0.1'],
    ['https://192.168.0.1/', '192.168.0.1'],
    ['https://100.64.0.1/', '100.64.0.1'],
  ])('%s is the IP literal %s, refused at once', (raw, host) => {
    const error = failure(() => parseTargetUrl(raw, policy));
    expect(error.code).toBe('blocked');
    expect(error.detail).toMatch(new RegExp(`^${host.replaceAll('.', '\\.')} is `));
  });

  it('lets the allow-listed address and port through, whatever the spelling', () => {
    expect(parseTargetUrl('http://2130706433:8081/', policy).host).toBe('127.0.0.1');
    expect(parseTargetUrl('http://[::ffff:7f00:1]:8081/', policy).host).toBe('::ffff:7f00:1');
    expect(parseTargetUrl('http://127.0.0.1.:8081/', policy).host).toBe('127.0.0.1');
    expect(failure(() => parseTargetUrl('http://127.0.0.1:8082/', policy)).detail).toBe(
      '127.0.0.1 is allowed by WEBCAP_ALLOW_PRIVATE but not on port 8082; add 127.0.0.1/32:8082',
    );
  });
});

describe('redirectTarget', () => {
  const current = new URL('https://example.com/a/b');

  it('resolves a relative Location against the current URL', () => {
    expect(redirectTarget('../c?d=1', current, policy).url.href).toBe('https://example.com/c?d=1');
    expect(redirectTarget('//other.example/x', current, policy).url.href).toBe('https://other.example/x');
  });

  it('refuses other schemes and refused IP literals as blocked', () => {
    expect(failure(() => redirectTarget('file:///etc/passwd', current, policy))).toMatchObject({
      code: 'blocked',
      detail: 'redirect to a file URL',
    });
    expect(failure(() => redirectTarget('gopher://x/', current, policy)).code).toBe('blocked');
    expect(failure(() => redirectTarget('http://0x7f.1:8082/', current, policy))).toMatchObject({
      code: 'blocked',
      detail: '127.0.0.1 is allowed by WEBCAP_ALLOW_PRIVATE but not on port 8082; add 127.0.0.1/32:8082',
    });
  });

  it('calls a malformed Location unreachable', () => {
    expect(failure(() => redirectTarget('http://[::1', current, policy)).code).toBe('target_unreachable');
  });
});
