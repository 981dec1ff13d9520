import { readFileSync } from 'node:fs';
import { processTree } from '../src/browser/process-tree.js';

// USER_HZ: the unit of /proc/<pid>/stat's times; 100 on every Linux platform Node supports.
const TICKS_PER_SECOND = 100;

/**
 * CPU time used so far by a process tree, in ms: user + system of every live member, plus that
 * of the children each has reaped (Chromium's zygote reaps its renderers), so a renderer that
 * exits between two readings is still counted. The difference of two readings is what the tree
 * spent in between.
 */
export async function treeCpuMs(pid: number): Promise<number> {
  let ticks = 0;
  for (const member of await processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${member}/stat`, 'utf8');
      // Fields after the command name: state is 3rd; utime, stime, cutime, cstime are 14th to 17th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      for (const index of [11, 12, 13, 14]) ticks += Number(fields[index] ?? 0);
    } catch {
      // Exited meanwhile: its time is now its parent's.
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** CPU time of this Node process (every thread), in ms. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** utime + stime of one process (every thread, not its children), in ms. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}
