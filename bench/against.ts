import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onExit } from './exit-hooks.js';
import { UsageError } from './usage-error.js';

/** `--against=REF`: that commit checked out in a temporary worktree, installed and built. */
export interface AgainstCheckout {
  /** The ref as given on the command line. */
  readonly ref: string;
  readonly commit: string;
  readonly shortCommit: string;
  /** Its service's name in the report: `service@<short sha>`. */
  readonly label: string;
  /** The worktree, whose dist/ holds the build its service runs. */
  readonly root: string;
  /** node_modules linked to this checkout's (the same package-lock.json) or installed by npm ci. */
  readonly nodeModules: 'linked' | 'installed';
  readonly buildSeconds: number;
  /** Removes the worktree (also done when the process exits without it). */
  remove(): void;
}

function git(args: readonly string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The commit `ref` names, or a UsageError saying it names none. */
function resolveCommit(ref: string, root: string): string {
  try {
    return git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], root);
  } catch {
    throw new UsageError(
      `--against=${ref}: not a commit of this repository (\`git rev-parse --verify '${ref}^{commit}'\` found none)`,
    );
  }
}

/**
 * node_modules for `checkout` from this checkout's: a directory of links to each installed
 * package, except the workspace packages (the SDK, the console), linked to the checkout's own
 * copies. One link to the whole directory would leave those, which point into the checkout that
 * installed them, on this checkout's SDK: the other ref would be built and run against it.
 */
function linkNodeModules(root: string, checkout: string): void {
  const installed = realpathSync(path.join(root, 'node_modules'));
  const owner = path.dirname(installed);
  const target = path.join(checkout, 'node_modules');
  const link = (name: string) => {
    const source = path.join(installed, name);
    let to = source;
    if (lstatSync(source).isSymbolicLink()) {
      const resolved = realpathSync(source);
      const inOwner = path.relative(owner, resolved);
      if (!inOwner.startsWith('..') && !resolved.startsWith(`${installed}${path.sep}`)) {
        to = path.join(checkout, inOwner);
      }
    }
    symlinkSync(to, path.join(target, name));
  };
  mkdirSync(target);
  for (const entry of readdirSync(installed)) {
    if (!entry.startsWith('@')) {
      link(entry);
      continue;
    }
    mkdirSync(path.join(target, entry));
    for (const scoped of readdirSync(path.join(installed, entry))) link(path.join(entry, scoped));
  }
}

/** The environment for npm in the worktree: ours without the npm_* variables of `npm run bench`,
 * whose npm_config_local_prefix would point the inner npm back at this checkout. */
function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
  );
  return { ...env, ...extra };
}

/** Runs `npm args` in `cwd`, its output appended to `logFile`; killed with its children if the bench exits meanwhile. */
function npm(args: readonly string[], cwd: string, logFile: string, env: NodeJS.ProcessEnv): Promise<void> {
  const log = openSync(logFile, 'a');
  return new Promise<void>((resolve, reject) => {
    // Its own process group, so that tsc and vite under npm go with it.
    const child = spawn('npm', args, { cwd, env, stdio: ['ignore', log, log], detached: true });
    const forget = onExit(() => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
        process.kill(-child.pid, 'SIGKILL');
    });
    child.once('error', (error) => {
      forget();
      reject(error);
    });
    child.once('exit', (code, signal) => {
      forget();
      if (code === 0) {
        resolve();
        return;
      }
      const tail = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-30).join('\n');
      reject(new Error(`npm ${args.join(' ')} in ${cwd} ended with ${code ?? signal}:\n${tail}`));
    });
  }).finally(() => closeSync(log));
}

/**
 * Checks `ref` out in a temporary worktree (git worktree add --detach), gives it node_modules
 * (linked when its package-lock.json is ours, else `npm ci`) and builds it with its own
 * `npm run build`, the npm output going to `buildLog`. The worktree is removed by `remove()`, and
 * by an exit hook if the bench ends first (an error, Ctrl-C).
 */
export async function checkoutAgainst(
  ref: string,
  options: { readonly root: string; readonly buildLog: string },
): Promise<AgainstCheckout> {
  const { root, buildLog } = options;
  const commit = resolveCommit(ref, root);
  const shortCommit = git(['rev-parse', '--short', commit], root);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'webcap-bench-against-'));
  const checkout = path.join(dir, 'webcap');
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    forget();
    // node_modules first, by Node, which unlinks the links there without following them.
    rmSync(path.join(checkout, 'node_modules'), { recursive: true, force: true });
    try {
      git(['worktree', 'remove', '--force', checkout], root);
    } catch {
      // Not registered (the add failed): the directory goes below, and prune forgets it.
    }
    rmSync(dir, { recursive: true, force: true });
    git(['worktree', 'prune'], root);
  };
  const forget = onExit(remove);
  try {
    console.log(`  --against=${ref}: ${shortCommit} checked out in ${checkout}...`);
    git(['worktree', 'add', '--detach', '--quiet', checkout, commit], root);
    const sameLock = readFileSync(path.join(root, 'package-lock.json')).equals(
      readFileSync(path.join(checkout, 'package-lock.json')),
    );
    if (sameLock) {
      linkNodeModules(root, checkout);
    } else {
      console.log(`  its package-lock.json differs from this checkout's: npm ci there...`);
      await npm(
        ['ci', '--no-audit', '--no-fund'],
        checkout,
        buildLog,
        npmEnv({ PUPPETEER_SKIP_DOWNLOAD: '1' }),
      );
    }
    console.log(
      `  building ${shortCommit} (npm run build, output in ${path.relative(process.cwd(), buildLog)})...`,
    );
    const started = performance.now();
    await npm(['run', 'build'], checkout, buildLog, npmEnv());
    return {
      ref,
      commit,
      shortCommit,
      label: `service@${shortCommit}`,
      root: checkout,
      nodeModules: sameLock ? 'linked' : 'installed',
      buildSeconds: (performance.now() - started) / 1000,
      remove,
    };
  } catch (error) {
    remove();
    throw error;
  }
}
