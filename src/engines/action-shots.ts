import { type Static, Type } from 'typebox';
import type { ImageShot, ImageType } from '../browser/screenshot.js';
import { CONTENT_TYPES } from './capture/params.js';

/** The image of one `screenshot` step, as the engine encoded it. */
export interface StepShot extends ImageShot {
  readonly format: ImageType;
  readonly contentType: string;
}

/** The page pipeline's step images, described in the encoding the engine asked for. */
export function stepShotsOf(shots: readonly ImageShot[], format: ImageType): StepShot[] {
  return shots.map((shot) => ({ ...shot, format, contentType: CONTENT_TYPES[format] }));
}

/**
 * What the `screenshot` steps of `actions` leave in a JSON answer (capture's and content's), in
 * Firecrawl's shape: `actions.screenshots`, the hosted links of the images in the order the steps
 * took them (docs/capture.md, "Acting on the page").
 */
export const ActionsResultSchema = Type.Object(
  {
    screenshots: Type.Array(Type.String({ description: 'hosted, signed, expiring link to the image' }), {
      description: 'one per screenshot step, in order',
    }),
  },
  { additionalProperties: false, description: 'with screenshot steps in actions' },
);

export type ActionsResult = Static<typeof ActionsResultSchema>;
