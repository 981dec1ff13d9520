import { describe, expect, it } from 'vitest';
import { chromiumArgs } from './chromium-args.js';

describe('chromiumArgs', () => {
  it('sends everything, loopback included, through the proxy and resolves nothing itself', () => {
    const args = chromiumArgs({ proxyPort: 4321, sandbox: 'auto', runningAsRoot: false });
    expect(args).toContain('--proxy-server=http://127.0.0.1:4321');
    expect(args).toContain('--proxy-bypass-list=<-loopback>');
    expect(args).toContain('--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1');
    expect(args).toContain('--force-webrtc-ip-handling-policy=disable_non_proxied_udp');
    expect(args).toContain('--disable-quic');
    expect(args).not.toContain('--no-sandbox');
  });

  it('auto drops the sandbox only for root', () => {
    expect(chromiumArgs({ proxyPort: 1, sandbox: 'auto', runningAsRoot: true })).toContain('--no-sandbox');
    expect(chromiumArgs({ proxyPort: 1, sandbox: 'auto', runningAsRoot: false })).not.toContain(
      '--no-sandbox',
    );
    expect(chromiumArgs({ proxyPort: 1, sandbox: 'auto' }).includes('--no-sandbox')).toBe(
      process.getuid?.() === 0,
    );
  });

  it('on and off decide whoever runs it', () => {
    expect(chromiumArgs({ proxyPort: 1, sandbox: 'off', runningAsRoot: false })).toContain('--no-sandbox');
    expect(chromiumArgs({ proxyPort: 1, sandbox: 'on', runningAsRoot: true })).not.toContain('--no-sandbox');
  });
});
