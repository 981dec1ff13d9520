import type { Config } from '../../config.js';
import { adminTokenCheck } from './admin-token.js';
import { blobsCheck } from './blobs.js';
import type { Check } from './check.js';
import { chromiumCheck } from './chromium.js';
import { dataDirModesCheck } from './data-dir-modes.js';
import { databaseCheck } from './database.js';
import { ffmpegCheck } from './ffmpeg.js';
import { cjkFontsCheck, emojiFontsCheck, latinFontsCheck } from './fonts.js';
import { metricsTokenCheck } from './metrics-token.js';
import { portCheck } from './port.js';
import { redisCheck } from './redis.js';
import { signingSecretCheck } from './signing-secret.js';

/** The checks that need no configuration, in the order they are reported. */
const MACHINE_CHECKS: readonly (() => Check)[] = [latinFontsCheck, cjkFontsCheck, emojiFontsCheck];

/** Every check of a configuration, in the order they are reported: a new check is one entry here. */
const CONFIGURED_CHECKS: readonly ((config: Config) => Check)[] = [
  chromiumCheck,
  ffmpegCheck,
  ...MACHINE_CHECKS,
  databaseCheck,
  redisCheck,
  blobsCheck,
  dataDirModesCheck,
  signingSecretCheck,
  adminTokenCheck,
  metricsTokenCheck,
  portCheck,
];

/** The checks that need no configuration: they run even when the environment does not parse. */
export function machineChecks(): Check[] {
  return MACHINE_CHECKS.map((check) => check());
}

/** Every check of a configuration, in the order they are reported. */
export function configuredChecks(config: Config): Check[] {
  return CONFIGURED_CHECKS.map((check) => check(config));
}
