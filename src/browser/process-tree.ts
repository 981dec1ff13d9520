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
  const sizes = await Promise.all(
    (await processTree(pid)).map(async (member) => {
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
