import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Written by `make` (and here) once a build of the current sources is in dist/. */
const BUILT = path.join(ROOT, 'dist/.built');

/**
 * The newest modification time among the sources the build reads (the service's, the SDK's and the
 * console's: every file of console/src, its styles and images too), as the Makefile counts them.
 */
function newestSource(): number {
  let newest = 0;
  const configs = [
    'tsconfig.json',
    'clients/typescript/tsconfig.json',
    'console/index.html',
    'console/vite.config.ts',
  ];
  for (const config of configs) {
    newest = Math.max(newest, fs.statSync(path.join(ROOT, config)).mtimeMs);
  }
  for (const dir of ['src', 'clients/typescript/src', 'console/src']) {
    const anyFile = dir === 'console/src';
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || entry.name.endsWith('.test.ts') || !(anyFile || entry.name.endsWith('.ts')))
        continue;
      newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

/**
 * vitest's global setup of the processes project: the `webcap` processes those tests start run
 * dist/ (a process start without compiling the sources), so dist/ is built first when a source
 * is newer than the last build; a build that fails stops the run rather than test stale code.
 */
export default function setup(): void {
  const built = fs.existsSync(BUILT) ? fs.statSync(BUILT).mtimeMs : 0;
  if (built >= newestSource()) return;
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  fs.writeFileSync(BUILT, '');
}
