import { type PageSource, SYNTHETIC_ORIGIN } from '../browser/page-params.js';
import type { AnalyzeDeps } from '../engines/analyze/analyze.js';
import type { CaptureDeps } from '../engines/capture/capture.js';
import type { ContentDeps } from '../engines/content/content.js';
import type { NetworkGuard } from '../net/guard.js';
import type { UpstreamProxy } from '../net/upstream-proxy.js';
import type { BlobStore } from '../store/blobs.js';
import type { MeteringDeps } from './metering.js';

/** What a call needs besides its parameters; the HTTP app and the job worker build it alike. */
export interface CallDeps {
  readonly metering: MeteringDeps;
  readonly guard: NetworkGuard;
  /** Cache entries and hosted files. */
  readonly blobs: BlobStore;
  readonly capture: CaptureDeps;
  readonly content: ContentDeps;
  readonly analyze: AnalyzeDeps;
  /** HMAC secret of hosted file links. */
  readonly signingSecret: string;
  readonly fileUrlTtlSeconds: number;
  readonly s3UploadTimeoutMs: number;
}

/** What a page call is checked on: where its page comes from and the caller's proxy. */
interface PageTarget {
  readonly url: string;
  readonly document?: PageSource;
  readonly proxy: UpstreamProxy | null;
}

/**
 * Refuses a page call's target and proxy before anything is reserved. A caller's own page is
 * served at its base_url, checked as a target is; the synthetic origin never reaches the network.
 */
export async function checkPage(deps: CallDeps, params: PageTarget): Promise<void> {
  if (params.document === undefined) await deps.guard.checkTarget(params.url, 'url');
  else if (params.url !== SYNTHETIC_ORIGIN) await deps.guard.checkTarget(params.url, 'base_url');
  if (params.proxy !== null) await deps.guard.checkUpstream(params.proxy);
}
