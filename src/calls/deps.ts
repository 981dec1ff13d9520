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

/** Refuses a page call's target and proxy before anything is reserved. */
export async function checkPage(
  deps: CallDeps,
  params: { readonly url: string; readonly proxy: UpstreamProxy | null },
): Promise<void> {
  await deps.guard.checkTarget(params.url, 'url');
  if (params.proxy !== null) await deps.guard.checkUpstream(params.proxy);
}
