import fs from 'node:fs/promises';
import type { Config } from '../../config.js';
import { DEFAULT_FFMPEG_PATH } from '../../engines/capture/encode-animation.js';
import { type Check, errorCode, fail, INSTALL_DEPS, messageOf, ok } from './check.js';
import { runProgram } from './run-program.js';

/** The configured ffmpeg, which animated captures need, exists, is executable, and prints its version. */
export function ffmpegCheck(config: Config): Check {
  const name = 'ffmpeg';
  const file = config.animation.ffmpegPath;
  const fix =
    file === DEFAULT_FFMPEG_PATH
      ? `apt-get install ffmpeg, ${INSTALL_DEPS}`
      : `point FFMPEG_PATH at an ffmpeg binary, or unset it for ${DEFAULT_FFMPEG_PATH} (apt-get install ffmpeg)`;
  return {
    name,
    async run({ timeoutMs }) {
      try {
        await fs.access(file, fs.constants.X_OK);
      } catch (error) {
        const why = errorCode(error) === 'ENOENT' ? 'not found' : 'not executable by this user';
        return fail(name, `${file} ${why} (animated captures need it)`, fix);
      }
      try {
        const version = (await runProgram(file, ['-hide_banner', '-version'], timeoutMs))
          .trim()
          .split('\n')[0];
        return ok(name, `${version} at ${file}`);
      } catch (error) {
        return fail(name, `${file} -version failed: ${messageOf(error)}`, fix);
      }
    },
  };
}
