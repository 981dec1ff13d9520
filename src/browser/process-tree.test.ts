import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processTree, treeMemoryBytes, treeMemoryOver } from './process-tree.js';

describe('processTree', () => {
  it('finds a process and its descendants, and their memory', async () => {
    // A shell with two children, one of which has a child of its own: four processes.
    const shell = spawn('sh', ['-c', 'sleep 30 & sh -c "sleep 30 & wait" & wait'], {
      stdio: 'ignore',
      detached: true,
    });
    try {
      const pid = shell.pid as number;
      let tree: number[] = [];
      for (let i = 0; i < 50 && tree.length < 4; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        tree = await processTree(pid);
      }
      expect(tree[0]).toBe(pid);
      expect(tree).toHaveLength(4);
      expect(await processTree(process.pid)).toEqual(expect.arrayContaining(tree));
      const bytes = await treeMemoryBytes(pid);
      expect(bytes).toBeGreaterThan(0);
      // Over a limit it answers the proportional size; within one (here past any resident sum), nothing.
      expect(await treeMemoryOver(pid, 0)).toBeGreaterThan(0);
      expect(await treeMemoryOver(pid, 2 ** 50)).toBeNull();
    } finally {
      process.kill(-(shell.pid as number), 'SIGKILL');
    }
  });

  it('is just the pid for a pid that no process has', async () => {
    expect(await processTree(2 ** 22 + 1)).toEqual([2 ** 22 + 1]);
  });
});
