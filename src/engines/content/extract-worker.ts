/** An extractor thread's entry: extracts each page it is sent (extractor-pool.ts). */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { type ExtractInput, extractContent } from './extract.js';

export interface ExtractRequest {
  readonly id: number;
  readonly input: ExtractInput;
}

export type ExtractReply =
  | { readonly id: number; readonly ok: true; readonly value: ReturnType<typeof extractContent> }
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
if (port === null) throw new Error('extract-worker runs as a worker thread');
port.on('message', ({ id, input }: ExtractRequest) => {
  let reply: ExtractReply;
  try {
    reply = { id, ok: true, value: extractContent(input) };
  } catch (error) {
    reply = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
