import { type Static, Type } from 'typebox';
import type { CaptureResult } from '../engines/capture/params.js';
import { hostFile } from '../store/file-urls.js';
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

/** Stores the result as a hosted file and describes it, with its signed, expiring URL. */
async function hostedJson(deps: CallDeps, result: CaptureResult, baseUrl: string): Promise<CaptureJson> {
  const file = await hostFile(deps.blobs, result.bytes, result.contentType, {
    baseUrl,
    ttlSeconds: deps.fileUrlTtlSeconds,
    secret: deps.signingSecret,
    now: deps.metering.clock(),
    extension: result.format,
  });
  return {
    success: true,
    screenshot_url: file.url,
    format: result.format,
    width: result.width,
    height: result.height,
    size: result.bytes.length,
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
