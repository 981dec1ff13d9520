import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HANG_MS } from '../helpers/waits.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The podman settings our machines need (scripts/container-podman.conf says why). */
const ENV = {
  ...process.env,
  CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? path.join(ROOT, 'scripts/container-podman.conf'),
};

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command with the podman settings, bounded by timeoutMs; resolves whatever it exits with. */
export function run(command: string, args: readonly string[], timeoutMs = HANG_MS): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: ROOT, env: ENV, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `podman ARGS`, failing loudly unless it exits 0; resolves its stdout. */
export async function podman(args: readonly string[], timeoutMs = HANG_MS): Promise<string> {
  const result = await run('podman', args, timeoutMs);
  if (result.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

/** Throws with the container's output once it is no longer running: a wait on it would never end. */
export async function expectRunning(name: string): Promise<void> {
  const state = (await podman(['inspect', '--format', '{{.State.Status}}', name])).trim();
  if (state === 'running' || state === 'created') return;
  const { stdout, stderr } = await run('podman', ['logs', name]);
  throw new Error(`${name} is ${state}; it printed: ${stdout}${stderr}`);
}

/**
 * A free port on 127.0.0.1 below 32768, where the kernel's ephemeral range starts: a port from
 * that range can be taken by an outgoing connection between this check and the container's bind.
 */
export async function freeLowPort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port between 20000 and 32000');
}

/**
 * Polls until check returns a value (not undefined); a check that sees the wait cannot end (a
 * container that exited) throws, with what it printed. Only a hang reaches timeoutMs: a start
 * bounded by 120 s failed on a loaded CI machine, and nothing said why.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = HANG_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The namespace flags of clone(2) (CLONE_NEWNS, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWCGROUP). */
const CLONE_NAMESPACE_FLAGS = 0x7e020000;
const ENOSYS = 38;
const NAMESPACE_CALLS = ['clone', 'clone3', 'unshare', 'setns'];

interface SeccompRule {
  names: string[];
  action: string;
  args?: unknown[];
  includes?: Record<string, unknown>;
  errnoRet?: number;
}

/**
 * Podman's default seccomp profile restricted as Docker's default restricts it for a process
 * without CAP_SYS_ADMIN: clone(2) without namespace flags only, clone3 answering ENOSYS (so that
 * the C library falls back to clone), no unshare or setns.
 */
export async function dockerLikeSeccomp(): Promise<Record<string, unknown>> {
  const profile = JSON.parse(await readFile('/usr/share/containers/seccomp.json', 'utf8')) as {
    syscalls: SeccompRule[];
  };
  for (const rule of profile.syscalls) {
    const unconditional = rule.action === 'SCMP_ACT_ALLOW' && !rule.args?.length && !rule.includes?.caps;
    if (unconditional) rule.names = rule.names.filter((name) => !NAMESPACE_CALLS.includes(name));
  }
  profile.syscalls.push(
    {
      names: ['clone'],
      action: 'SCMP_ACT_ALLOW',
      args: [{ index: 0, value: CLONE_NAMESPACE_FLAGS, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }],
    },
    { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: ENOSYS },
  );
  return profile;
}
