import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * vitest's global setup of the containers project: the webcap image (with the base images under
 * it) and the compose file's CI stand-ins are built once, before the files that use them start.
 * Each file still asks for them in its beforeAll, which then takes their cached layers; without
 * this, the three files built the same image side by side on a fresh machine, three times over.
 * A build that fails stops the run.
 */
export default function setup(): void {
  if (process.env.WEBCAP_TEST_IMAGE === undefined) {
    execFileSync('bash', ['scripts/container-image.sh'], { cwd: ROOT, stdio: 'inherit' });
  }
  execFileSync('bash', ['scripts/container-deps.sh'], { cwd: ROOT, stdio: 'inherit' });
}
