/** An extractor process's entry: runs each task it is sent (tasks.ts, pool.ts). */
import { setPriority } from 'node:os';
import { TASKS } from './tasks.js';
import { READY, type TaskReply, type TaskRequest } from './worker-protocol.js';

/**
 * Extraction yields the CPU to the process that answers calls: this process lowers its own
 * priority (nice 10; raising niceness needs no privilege). On a busy machine the event loop then
 * still gets its turn at once while pages are extracted beside it.
 */
function yieldPriority(): void {
  try {
    setPriority(10);
  } catch {
    // Not permitted here: the process keeps its priority.
  }
}

const send = process.send?.bind(process);
if (send === undefined) throw new Error('the extractor runs as a child process with an IPC channel');
yieldPriority();
// The service is gone (even killed with SIGKILL): nothing is left to extract for.
process.on('disconnect', () => process.exit(0));
process.on('message', ({ id, task, input }: TaskRequest) => {
  const failed = (error: unknown): TaskReply => ({
    id,
    ok: false,
    message: error instanceof Error ? error.message : String(error),
  });
  let reply: TaskReply;
  try {
    // The pool types each task's input (pool.ts run); this process trusts its parent.
    const run = TASKS[task] as (input: unknown) => unknown;
    reply = { id, ok: true, value: run(input) };
  } catch (error) {
    reply = failed(error);
  }
  try {
    send(reply);
  } catch (error) {
    // A value the channel cannot carry (too deep to serialize) fails its page, not the process.
    send(failed(error));
  }
});
send(READY);
