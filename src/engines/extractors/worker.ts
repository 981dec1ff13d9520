/** An extractor thread's entry: runs each task it is sent (tasks.ts, pool.ts). */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { TASKS, type TaskName } from './tasks.js';

export interface TaskRequest {
  readonly id: number;
  readonly task: TaskName;
  readonly input: unknown;
}

export type TaskReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly message: string };

/**
 * Extraction yields the CPU to the thread that answers calls: on Linux this thread lowers its own
 * priority (nice 10; raising niceness needs no privilege). On a busy machine the event loop then
 * still gets its turn at once while pages are extracted beside it.
 */
function yieldPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {
    // Not Linux, or no /proc: the thread keeps the process's priority.
  }
}

yieldPriority();
const port = parentPort;
if (port === null) throw new Error('the extractor worker runs as a worker thread');
port.on('message', ({ id, task, input }: TaskRequest) => {
  let reply: TaskReply;
  try {
    // The pool types each task's input (pool.ts run); this thread trusts its own process.
    const run = TASKS[task] as (input: unknown) => unknown;
    reply = { id, ok: true, value: run(input) };
  } catch (error) {
    reply = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
