import { type Static, Type } from 'typebox';
import { type ActionsResult, ActionsResultSchema, type StepShot } from '../engines/action-shots.js';
import type { CaptureResult } from '../engines/capture/params.js';
import { fileLink, type HostFileOptions, hostFile } from '../store/file-urls.js';
import type { CallDeps } from './deps.js';
import { type CallerBucket, uploadToCallerBucket } from './s3-upload.js';

/** How a capture is answered: its bytes, its JSON body, or the JSON body with the bytes in base64. */
export type ResponseType = 'image' | 'json' | 'base64';

/** What is done with a capture's bytes: how they are answered, cached and uploaded. */
export interface Delivery {
  readonly responseType: ResponseType;
  readonly cache: { readonly ttlSeconds: number } | null;
  /** The caller's bucket, checked at the edge; null when nothing is uploaded. */
  readonly s3: CallerBucket | null;
  /** Base of the hosted file links handed out (`screenshot_url`). */
  readonly baseUrl: string;
}

/** The JSON body of a capture (DESIGN.md §2 "Capture response"): the schema it is declared and checked with, and its type. */
export const CaptureJsonSchema = Type.Object(
  {
    success: Type.Literal(true),
    screenshot_url: Type.String({ description: 'hosted, signed, expiring link to the file' }),
    format: Type.String(),
    width: Type.Integer(),
    height: Type.Integer(),
    size: Type.Integer({ description: 'bytes' }),
    base64: Type.Optional(Type.String({ description: 'response_type=base64: the file, base64' })),
    s3_url: Type.Optional(Type.String({ description: "s3_url=true: the uploaded object's URL" })),
    actions: Type.Optional(ActionsResultSchema),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'present when the page was captured before it finished loading (also in x-webcap-warning)',
      }),
    ),
  },
  { additionalProperties: false },
);

export type CaptureJson = Static<typeof CaptureJsonSchema>;

/** How a call's files are hosted: linked from `baseUrl`, for FILE_URL_TTL_SECONDS, named with their format. */
function hostOptions(deps: CallDeps, baseUrl: string, extension: string): HostFileOptions {
  return {
    baseUrl,
    ttlSeconds: deps.fileUrlTtlSeconds,
    secret: deps.signingSecret,
    now: deps.metering.clock(),
    extension,
  };
}

/**
 * A fresh link, from `baseUrl`, to a hosted file kept longer than one link lasts (a crawl page's
 * image, kept as long as the crawl): valid FILE_URL_TTL_SECONDS from now, as any hosted file's.
 */
export function hostedFileLink(deps: CallDeps, baseUrl: string, id: string): string {
  return fileLink(id, hostOptions(deps, baseUrl, '')).url;
}

/**
 * The images of the `screenshot` steps as hosted files, and their links in order (`actions`);
 * nothing when the steps took none, so an answer without them keeps its shape.
 */
export async function hostStepShots(
  deps: CallDeps,
  shots: readonly StepShot[],
  baseUrl: string,
): Promise<{ actions?: ActionsResult }> {
  if (shots.length === 0) return {};
  const screenshots: string[] = [];
  for (const shot of shots) {
    const file = await hostFile(
      deps.blobs,
      shot.bytes,
      shot.contentType,
      hostOptions(deps, baseUrl, shot.format),
    );
    screenshots.push(file.url);
  }
  return { actions: { screenshots } };
}

/** Stores the result (and the images of its screenshot steps) as hosted files and describes it, with signed, expiring URLs. */
async function hostedJson(deps: CallDeps, result: CaptureResult, baseUrl: string): Promise<CaptureJson> {
  const file = await hostFile(
    deps.blobs,
    result.bytes,
    result.contentType,
    hostOptions(deps, baseUrl, result.format),
  );
  return {
    success: true,
    screenshot_url: file.url,
    format: result.format,
    width: result.width,
    height: result.height,
    size: result.bytes.length,
    ...(await hostStepShots(deps, result.stepShots, baseUrl)),
    ...(result.warnings.length > 0 ? { warnings: [...result.warnings] } : {}),
  };
}

/** Whether the image itself is the answer: nothing to host or upload, so nothing that could fail. */
export function bytesAreTheAnswer(delivery: Delivery): boolean {
  return delivery.responseType === 'image' && delivery.s3 === null;
}

/** The body the delivery asks for, hosting or uploading as needed; null when the bytes are the answer. */
export async function deliver(
  deps: CallDeps,
  result: CaptureResult,
  delivery: Delivery,
): Promise<CaptureJson | null> {
  if (bytesAreTheAnswer(delivery)) return null;
  if (delivery.s3 !== null) {
    const uploaded = await uploadToCallerBucket(delivery.s3, result.bytes, result.contentType, {
      ...deps.guard.agents,
      timeoutMs: deps.s3UploadTimeoutMs,
      now: deps.metering.clock(),
    });
    return { ...(await hostedJson(deps, result, delivery.baseUrl)), s3_url: uploaded.url };
  }
  const json = await hostedJson(deps, result, delivery.baseUrl);
  return delivery.responseType === 'base64' ? { ...json, base64: result.bytes.toString('base64') } : json;
}
