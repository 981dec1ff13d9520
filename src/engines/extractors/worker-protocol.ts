/** The messages between the extractor pool (pool.ts) and its processes (worker.ts). */
import type { TaskName } from './tasks.js';

export interface TaskRequest {
  readonly id: number;
  readonly task: TaskName;
  readonly input: unknown;
}

export type TaskReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** Sent once by a process that has loaded its modules and takes tasks. */
export const READY = 'ready';
