import { type ChildProcess, fork } from 'node:child_process';
import { PAGES, type PageName } from './fixture-pages.js';

/** One capture target: a page on a host. */
export interface Target {
  readonly page: PageName;
  readonly host: string;
  readonly url: string;
}

/** The fixture site, served by a child process on several loopback hosts. */
export interface FixtureSite {
  readonly port: number;
  readonly hosts: readonly string[];
  /** Target number `i` of the rotation: consecutive targets differ in both page and host. */
  target(i: number): Target;
  /** WEBCAP_ALLOW_PRIVATE for the service: exactly these hosts, on this port. */
  allowList(): string;
  close(): Promise<void>;
}

/**
 * Starts the site on 127.0.0.2, 127.0.0.3, ... (Linux routes all of 127/8 to lo). Target i is
 * page i mod 3 on host i mod hosts. With 7 hosts, prime to the 3 pages, no two consecutive shots
 * share a site; two consecutive shots of one worker are about `concurrency` targets apart, and
 * share a site only when that distance is a multiple of 7, which at concurrency 1, 2 and 4 is
 * rare. A baseline's reused page thus crosses to another site on nearly every shot, as a fresh
 * context starts on a new one: no renderer stays warm for a site on either side. (With 4 hosts
 * and 4 workers, each worker kept to one site and the floor reused its renderer.)
 */
export async function startFixtureSite(hostCount = 7): Promise<FixtureSite> {
  if (hostCount % PAGES.length === 0) throw new Error('the host count must be prime to the page count');
  const hosts = Array.from({ length: hostCount }, (_, i) => `127.0.0.${i + 2}`);
  const child: ChildProcess = fork(new URL('./fixture-server.ts', import.meta.url), hosts, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the fixture server exited with ${code}`)));
    child.once('error', reject);
  });
  return {
    port,
    hosts,
    target(i) {
      const page = PAGES[i % PAGES.length] ?? PAGES[0];
      const host = hosts[i % hosts.length] ?? '127.0.0.2';
      return { page: page.name, host, url: `http://${host}:${port}${page.path}` };
    },
    allowList: () => hosts.map((host) => `${host}/32:${port}`).join(','),
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
