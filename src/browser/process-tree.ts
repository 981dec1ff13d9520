import { readdir, readFile } from 'node:fs/promises';

/** The children of one process: those forked by any of its threads (Linux's /proc/<pid>/task/<tid>/children). */
async function childrenOf(pid: number): Promise<number[]> {
  let threads: string[];
  try {
    threads = await readdir(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const lists = await Promise.all(
    threads.map((tid) => readFile(`/proc/${pid}/task/${tid}/children`, 'utf8').catch(() => '')),
  );
  return lists.flatMap((list) =>
    list
      .split(' ')
      .filter((child) => child !== '')
      .map(Number),
  );
}

/**
 * `pid` and all its live descendants, found by walking down from it, so the cost follows the
 * tree's size rather than the machine's process count; read through the thread pool. A process
 * whose parent died was adopted by init and is no longer part of the tree.
 */
export async function processTree(pid: number): Promise<number[]> {
  const tree: number[] = [];
  let level = [pid];
  while (level.length > 0) {
    tree.push(...level);
    level = (await Promise.all(level.map(childrenOf))).flat();
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
  return sumOf(await processTree(pid), 'smaps_rollup', /^Pss:\s+(\d+) kB/m);
}

/**
 * The tree's memory as treeMemoryBytes counts it when that is over `limitBytes`, else null. The
 * resident sizes are summed first: the kernel keeps them as counters (/proc/<pid>/status, no
 * page-table walk), and a process's proportional set size never exceeds its resident size, so a
 * tree whose resident sum is within the limit is within it. Only a tree past that pays for the
 * walk: checked every few renders, the walk was 10 % of the service's CPU under load.
 */
export async function treeMemoryOver(pid: number, limitBytes: number): Promise<number | null> {
  const tree = await processTree(pid);
  if ((await sumOf(tree, 'status', /^VmRSS:\s+(\d+) kB/m)) <= limitBytes) return null;
  const bytes = await sumOf(tree, 'smaps_rollup', /^Pss:\s+(\d+) kB/m);
  return bytes > limitBytes ? bytes : null;
}

/** The sum over `pids` of the kB figure `field` matches in /proc/<pid>/<file>, in bytes. */
async function sumOf(pids: readonly number[], file: string, field: RegExp): Promise<number> {
  const sizes = await Promise.all(
    pids.map(async (member) => {
      try {
        const match = field.exec(await readFile(`/proc/${member}/${file}`, 'utf8'));
        return match ? Number(match[1]) * 1024 : 0;
      } catch {
        // Gone, or not ours to read.
        return 0;
      }
    }),
  );
  return sizes.reduce((sum, bytes) => sum + bytes, 0);
}
