/**
 * Debian's `chromium-headless-shell`: the same Chromium build as `chromium`, without the desktop
 * browser's UI. A fresh context and page cost about a quarter of the CPU they do in the full
 * browser's headless mode, which builds a window with its UI for every one
 * (docs/performance.md). The binary itself, not the `/usr/bin` script, so that the pid puppeteer
 * sees is Chromium's. The service runs the system browser, never one it downloads.
 */
export const DEFAULT_CHROMIUM_PATH = '/usr/lib/chromium/chromium-headless-shell';

/**
 * The spec's default viewport (capture and content), and the size windows are opened at. In the
 * headless shell that is a fresh page's viewport, so a capture at the default size needs no
 * emulation override (which costs the browser a relayout of every page); the full browser keeps
 * part of its window for its UI, and the pool measures what a page gets (pool.ts, windowSize).
 */
export const DEFAULT_VIEWPORT = { width: 1280, height: 1024 } as const;

/**
 * The most JavaScript heap one renderer may have, in MB: far above what real pages use (a few
 * hundred MB for the heaviest applications), far below V8's own limit of about 4 GB per renderer.
 */
export const RENDERER_HEAP_LIMIT_MB = 1024;

export interface ChromiumArgsOptions {
  /** Port of the egress proxy on 127.0.0.1: Chromium's only way out. */
  readonly proxyPort: number;
  /** `auto`: sandboxed unless running as root, which cannot use Chromium's user-namespace sandbox. */
  readonly sandbox: 'auto' | 'on' | 'off';
  /** Defaults to the current process's uid. */
  readonly runningAsRoot?: boolean;
}

/**
 * Launch flags that confine Chromium's network to the egress proxy (DESIGN.md §3): every request,
 * loopback included, goes to the proxy; Chromium resolves no name itself (with a fixed proxy it
 * never needs to, and the rules stop DNS prefetch from leaking lookups); QUIC and non-proxied
 * WebRTC UDP are off; background services that phone home are off.
 */
export function chromiumArgs(options: ChromiumArgsOptions): string[] {
  const proxy = `127.0.0.1:${options.proxyPort}`;
  const root = options.runningAsRoot ?? process.getuid?.() === 0;
  const sandboxed = options.sandbox === 'auto' ? !root : options.sandbox === 'on';
  return [
    '--headless=new',
    ...(sandboxed ? [] : ['--no-sandbox']),
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
    `--window-size=${DEFAULT_VIEWPORT.width},${DEFAULT_VIEWPORT.height}`,
    `--proxy-server=http://${proxy}`,
    // Without it, Chromium sends loopback (127.0.0.0/8, [::1], localhost) straight past the proxy.
    '--proxy-bypass-list=<-loopback>',
    // Every name resolves to nothing; the proxy's own address is an IP literal and needs no lookup.
    '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    // No page opens a window: window.open returns null and target=_blank does nothing; a page
    // opening 300 popups kept its own load from finishing within 8 s. The headless shell's
    // switch; the full browser ignores it and relies on the popup blocker (pool.ts).
    '--block-new-web-contents',
    // A page that allocates until it dies took 12 s and 4.5 GB of memory to crash its renderer
    // under V8's default limit; with this one it dies within about a second, and the render ends
    // then (page-guards.ts).
    `--js-flags=--max-old-space-size=${RENDERER_HEAP_LIMIT_MB}`,
  ];
}
