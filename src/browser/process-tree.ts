import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** Parent pid of every process on the machine, read from /proc (Linux). */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses; fields resume after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      map.set(Number(entry), Number(fields[1]));
    } catch {
      // The process exited while we were reading.
    }
  }
  return map;
}

/** `pid` and all its live descendants. */
export function processTree(pid: number): number[] {
  const byParent = new Map<number, number[]>();
  for (const [child, parent] of parents()) {
    const list = byParent.get(parent) ?? [];
    list.push(child);
    byParent.set(parent, list);
  }
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    tree.push(next);
    queue.push(...(byParent.get(next) ?? []));
  }
  return tree;
}

/**
 * Memory of a process and its descendants, in bytes: the proportional set size, so pages that
 * Chromium's processes share are counted once overall rather than once per process. The kernel
 * walks each process's page tables to answer (25-300 ms for a busy Chromium tree), so the reads
 * go through libuv's thread pool rather than blocking the event loop.
 */
export async function treeMemoryBytes(pid: number): Promise<number> {
  const sizes = await Promise.all(
    processTree(pid).map(async (member) => {
      try {
        const rollup = await readFile(`/proc/${member}/smaps_rollup`, 'utf8');
        const match = /^Pss:\s+(\d+) kB/m.exec(rollup);
        return match ? Number(match[1]) * 1024 : 0;
      } catch {
        // Gone, or not ours to read.
        return 0;
      }
    }),
  );
  return sizes.reduce((sum, bytes) => sum + bytes, 0);
}
