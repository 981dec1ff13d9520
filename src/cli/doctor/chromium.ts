import fs from 'node:fs/promises';
import { DEFAULT_CHROMIUM_PATH } from '../../browser/chromium-args.js';
import type { Config } from '../../config.js';
import { type Check, errorCode, fail, INSTALL_DEPS, messageOf, ok } from './check.js';
import { runProgram } from './run-program.js';

/** The configured Chromium binary exists, is executable, and prints its version. */
export function chromiumCheck(config: Config): Check {
  const name = 'chromium';
  const file = config.browser.executablePath;
  const fix =
    file === DEFAULT_CHROMIUM_PATH
      ? `apt-get install chromium-headless-shell, ${INSTALL_DEPS}`
      : `point CHROMIUM_PATH at a Chromium binary, or unset it for ${DEFAULT_CHROMIUM_PATH} (apt-get install chromium-headless-shell)`;
  return {
    name,
    async run({ timeoutMs }) {
      try {
        await fs.access(file, fs.constants.X_OK);
      } catch (error) {
        const why = errorCode(error) === 'ENOENT' ? 'not found' : 'not executable by this user';
        return fail(name, `${file} ${why}`, fix);
      }
      try {
        const version = (await runProgram(file, ['--version'], timeoutMs)).trim().split('\n')[0];
        return ok(name, `${version} at ${file}`);
      } catch (error) {
        return fail(name, `${file} --version failed: ${messageOf(error)}`, fix);
      }
    },
  };
}
