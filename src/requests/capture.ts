import { type Static, type TObject, Type } from 'typebox';
import { DEVICE_NAMES } from '../browser/devices.js';
import type { CallSpec } from '../calls/call-spec.js';
import { bytesAreTheAnswer, type Delivery } from '../calls/delivery.js';
import { type CaptureFormat, type CaptureParams, type Clip, isAnimated } from '../engines/capture/params.js';
import { invalidParam } from '../errors.js';
import { refuseScreenshots } from './actions.js';
import { animationFields, animationOf } from './animation.js';
import { callerBucketFields, callerBucketOf } from './caller-bucket.js';
import { asyncFields, Flag, flag, wantsAsync } from './common-fields.js';
import {
  cacheOf,
  pageFields,
  pageParamsOf,
  WaitEventSchema,
  type WaitUntilInput,
  WaitUntilList,
} from './page.js';
import { pdfFields, pdfFieldsGiven, pdfOptionsOf } from './pdf.js';

/** The capture parameters both /v1/capture and the legacy /capture take (spec, GET /v1/capture). */
export const captureFields = {
  ...pageFields,
  format: Type.Optional(
    Type.Enum(['png', 'jpeg', 'jpg', 'webp', 'avif', 'pdf', 'mp4', 'webm', 'gif'], { default: 'png' }),
  ),
  device: Type.Optional(Type.Enum([...DEVICE_NAMES])),
  full_page: Type.Optional(Flag),
  freeze_fixed: Type.Optional(Flag),
  full_page_scroll_duration: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 10_000, description: 'milliseconds, default 400' }),
  ),
  viewport_width: Type.Optional(
    Type.Integer({ minimum: 100, maximum: 3840, description: 'pixels, default 1280' }),
  ),
  viewport_height: Type.Optional(
    Type.Integer({ minimum: 100, maximum: 4320, description: 'pixels, default 1024' }),
  ),
  width: Type.Optional(Type.Integer({ minimum: 100, maximum: 3840, description: 'alias of viewport_width' })),
  height: Type.Optional(
    Type.Integer({ minimum: 100, maximum: 4320, description: 'alias of viewport_height' }),
  ),
  scale_factor: Type.Optional(
    Type.Number({ minimum: 0.5, maximum: 4, description: 'device scale factor, default 1' }),
  ),
  selector: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  omit_background: Type.Optional(Flag),
  clip_x: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 100_000, description: 'CSS pixels from the left of the document' }),
  ),
  clip_y: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 100_000, description: 'CSS pixels from the top of the document' }),
  ),
  clip_width: Type.Optional(Type.Integer({ minimum: 1, maximum: 16_384, description: 'CSS pixels' })),
  clip_height: Type.Optional(Type.Integer({ minimum: 1, maximum: 16_384, description: 'CSS pixels' })),
  ...pdfFields,
  ...animationFields,
  ...callerBucketFields,
  response_type: Type.Optional(Type.Enum(['image', 'json', 'base64'], { default: 'image' })),
  ...asyncFields,
};

/** What GET /v1/capture adds to the shared fields: full_page_scroll, image_quality as text, wait_until one value or several. */
export const v1CaptureFields = {
  ...captureFields,
  full_page_scroll: Type.Optional(Flag),
  image_quality: Type.Optional(
    Type.String({ maxLength: 3, pattern: '^(100|[1-9][0-9]?)$', description: '1-100, default 80' }),
  ),
  wait_until: Type.Optional(WaitUntilList),
};

/** What the legacy /capture adds: full_page_scroll on by default, a numeric quality, one wait event. */
export const legacyCaptureFields = {
  full_page_scroll: Type.Optional(Flag),
  image_quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  wait_until: Type.Optional(WaitEventSchema),
};

/**
 * A validated capture request of either generation: the common fields, and those whose form
 * differs (image_quality as text in v1, a number in the legacy endpoint; one wait event or several).
 */
export type CaptureInput = Static<TObject<typeof captureFields>> & {
  readonly full_page_scroll?: Static<typeof Flag>;
  readonly image_quality?: string | number;
  readonly wait_until?: WaitUntilInput;
};

const CLIP_FIELDS = ['clip_x', 'clip_y', 'clip_width', 'clip_height'] as const;

/** The clip of a request: all four fields or none; an image of the viewport's kind (no selector, full page or PDF). */
function clipOf(input: CaptureInput, format: CaptureFormat): Clip | null {
  const given = CLIP_FIELDS.filter((name) => input[name] !== undefined);
  if (given.length === 0) return null;
  if (given.length < CLIP_FIELDS.length) {
    const missing = CLIP_FIELDS.filter((name) => input[name] === undefined);
    throw invalidParam(missing.join(', '), `must be given with ${given.join(', ')}: a clip takes all four`);
  }
  for (const [other, asked] of [
    ['selector', input.selector !== undefined],
    ['full_page', flag(input.full_page)],
    ['format=pdf', format === 'pdf'],
    [`format=${format}`, isAnimated(format)],
  ] as const) {
    if (asked)
      throw invalidParam('clip_x, clip_y, clip_width, clip_height', `cannot be combined with ${other}`);
  }
  return {
    x: input.clip_x ?? 0,
    y: input.clip_y ?? 0,
    width: input.clip_width ?? 0,
    height: input.clip_height ?? 0,
  };
}

/** omit_background for the formats that keep transparency; jpeg and the recordings have none, so asking is a 400. */
function omitBackgroundOf(input: CaptureInput, format: CaptureFormat): boolean {
  const omit = flag(input.omit_background);
  if (omit && (format === 'jpeg' || isAnimated(format)))
    throw invalidParam('omit_background', 'needs a format with transparency: png, webp, avif or pdf');
  return omit;
}

/** A recording is of the viewport: full_page or selector beside an animated format is a 400 naming it. */
function checkViewportOnly(input: CaptureInput, format: CaptureFormat): void {
  if (!isAnimated(format)) return;
  if (flag(input.full_page)) throw invalidParam('full_page', `cannot be combined with format=${format}`);
  if (input.selector !== undefined)
    throw invalidParam('selector', `cannot be combined with format=${format}`);
}

/** The PDF options of a pdf capture; PDF fields given with an image format are a 400 naming them. */
function pdfOf(input: CaptureInput, format: CaptureFormat): CaptureParams['pdf'] {
  if (format === 'pdf') return pdfOptionsOf(input);
  const given = pdfFieldsGiven(input);
  if (given.length > 0) throw invalidParam(given.join(', '), 'needs format=pdf');
  return null;
}

/** freeze_fixed changes how a full page is shot; anything else has no full-page shot to change. */
function freezeFixedOf(input: CaptureInput, format: CaptureFormat): true | undefined {
  if (!flag(input.freeze_fixed)) return undefined;
  if (!flag(input.full_page) || format === 'pdf') {
    throw invalidParam('freeze_fixed', 'needs full_page=true and an image format');
  }
  return true;
}

function alias(name: string, a: number | undefined, b: number | undefined): number | null {
  if (a !== undefined && b !== undefined && a !== b) throw invalidParam(name, `conflicts with its alias`);
  return a ?? b ?? null;
}

/**
 * The call of a validated request, its engine parameters and delivery; the legacy generation has
 * the earlier endpoint's defaults; `baseUrl` is where hosted files are linked from.
 */
export function captureRequest(
  input: CaptureInput,
  generation: 'v1' | 'legacy',
  baseUrl: string,
): CallSpec<'capture'> {
  const legacy = generation === 'legacy';
  const format: CaptureFormat = input.format === 'jpg' ? 'jpeg' : (input.format ?? 'png');
  const quality = input.image_quality === undefined ? 80 : Number(input.image_quality);
  const fullPageScroll = input.full_page_scroll === undefined ? legacy : flag(input.full_page_scroll);
  checkViewportOnly(input, format);
  const animation = animationOf(input, format);
  const params: CaptureParams = {
    format,
    ...(animation === undefined ? {} : { animation }),
    device: input.device ?? null,
    fullPage: flag(input.full_page),
    fullPageScroll,
    fullPageScrollDurationMs: input.full_page_scroll_duration ?? 400,
    viewportWidth: alias('viewport_width', input.viewport_width, input.width),
    viewportHeight: alias('viewport_height', input.viewport_height, input.height),
    scaleFactor: input.scale_factor ?? null,
    imageQuality: quality,
    selector: input.selector ?? null,
    pdf: pdfOf(input, format),
    omitBackground: omitBackgroundOf(input, format),
    clip: clipOf(input, format),
    ...pageParamsOf(input),
  };
  const freezeFixed = freezeFixedOf(input, format);
  const delivery: Delivery = {
    responseType: input.response_type ?? 'image',
    cache: cacheOf(input),
    s3: callerBucketOf(input),
    baseUrl,
  };
  // A job answers JSON whatever the response type (asJob), so only an answer made of the image refuses.
  if (bytesAreTheAnswer(delivery) && !wantsAsync(input)) {
    refuseScreenshots(
      params.actions,
      'needs a JSON answer (response_type=json or base64): with response_type=image the answer is the image alone',
    );
  }
  return {
    engine: 'capture',
    params: freezeFixed === undefined ? params : { ...params, freezeFixed },
    delivery,
  };
}
