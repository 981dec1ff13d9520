import { type Static, type TObject, Type } from 'typebox';
import {
  type AnimationOptions,
  type CaptureFormat,
  isAnimated,
  SCENARIOS,
} from '../engines/capture/params.js';
import { invalidParam } from '../errors.js';

/** The fields of an animated capture (format=mp4, webm or gif), named as ScreenshotOne names them. */
export const animationFields = {
  scenario: Type.Optional(
    Type.Enum([...SCENARIOS], {
      description:
        'format=mp4|webm|gif: default records the page as it moves, scroll scrolls it top to bottom',
    }),
  ),
  duration: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 30, description: 'format=mp4|webm|gif: seconds, default 5' }),
  ),
};

type AnimationInput = Static<TObject<typeof animationFields>>;

const DEFAULT_DURATION_SECONDS = 5;

/** The recording of an animated format; its fields given with another format are a 400 naming them. */
export function animationOf(input: AnimationInput, format: CaptureFormat): AnimationOptions | undefined {
  if (isAnimated(format)) {
    return {
      scenario: input.scenario ?? 'default',
      durationSeconds: input.duration ?? DEFAULT_DURATION_SECONDS,
    };
  }
  const given = Object.keys(animationFields).filter(
    (name) => input[name as keyof AnimationInput] !== undefined,
  );
  if (given.length > 0) throw invalidParam(given.join(', '), 'needs format=mp4, webm or gif');
  return undefined;
}
