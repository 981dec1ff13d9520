/** An extractor thread's entry: extracts each page it is sent (extractor-pool.ts). */
import { parentPort } from 'node:worker_threads';
import { type ExtractInput, extractContent } from './extract.js';

export interface ExtractRequest {
  readonly id: number;
  readonly input: ExtractInput;
}

export type ExtractReply =
  | { readonly id: number; readonly ok: true; readonly value: ReturnType<typeof extractContent> }
  | { readonly id: number; readonly ok: false; readonly message: string };

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
