import { Worker } from 'node:worker_threads';
import { WebcapError } from '../../errors.js';
import type { TaskInput, TaskName, TaskOutput } from './tasks.js';
import type { TaskReply, TaskRequest } from './worker.js';

export interface ExtractorPoolOptions {
  /** Threads extracting at once. */
  readonly threads: number;
  /** Extractions that may wait for a thread; past it, 503. */
  readonly maxQueue: number;
  /** Longest one task may take; its thread is replaced past it. */
  readonly taskTimeoutMs: number;
  /** V8 heap of one thread, in MB: a page that needs more fails alone, the process lives on. */
  readonly maxHeapMb: number;
}

interface Task {
  readonly id: number;
  readonly task: TaskName;
  readonly input: unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

interface Thread {
  readonly worker: Worker;
  task: Task | null;
  timer: NodeJS.Timeout | null;
}

/**
 * The worker's module: the compiled .js next to this file, or under tsx (dev, tests) the .ts
 * source, which a worker can only load through tsx's own import.
 */
function spawnWorker(maxHeapMb: number): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: maxHeapMb };
  if (import.meta.url.endsWith('.js')) {
    return new Worker(new URL('./worker.js', import.meta.url), { resourceLimits });
  }
  const source = new URL('./worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(source)}, ${JSON.stringify(import.meta.url)}))`;
  // Without its cache, tsx leaves no directory behind in the temp dir (the tests check it).
  const env = { ...process.env, TSX_DISABLE_CACHE: '1' };
  return new Worker(boot, { eval: true, resourceLimits, env });
}

/**
 * Threads that turn rendered pages into content and analyses (tasks.ts), so that parsing and
 * extraction (tens to hundreds of ms of CPU per page) never hold up the event loop that answers
 * other calls; the content and analyze engines share them.
 * Bounded: a fixed number of threads, a bounded queue, a deadline and a heap limit per page; a
 * thread that overruns or dies is replaced and only its page fails.
 */
export class ExtractorPool {
  private readonly threads: Thread[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ExtractorPoolOptions) {}

  /** Runs one task on a free thread; 503 when the queue is full, 500 timeout past taskTimeoutMs. */
  run<K extends TaskName>(task: K, input: TaskInput<K>): Promise<TaskOutput<K>> {
    if (this.closed)
      return Promise.reject(new WebcapError('unavailable', 'the extractor threads are closed'));
    const busy = this.threads.filter((thread) => thread.task !== null).length;
    if (busy >= this.options.threads && this.queue.length >= this.options.maxQueue) {
      return Promise.reject(
        new WebcapError('unavailable', 'the extractor threads are busy; retry shortly', {
          retryAfterSeconds: 1,
        }),
      );
    }
    return new Promise<TaskOutput<K>>((resolve, reject) => {
      this.queue.push({
        id: this.nextId++,
        task,
        input,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      this.dispatch();
    });
  }

  /** Tasks running and waiting now, for /metrics. */
  state(): { readonly busy: number; readonly queued: number } {
    return { busy: this.threads.filter((thread) => thread.task !== null).length, queued: this.queue.length };
  }

  /** Stops every thread; waiting and running extractions fail. */
  async close(): Promise<void> {
    this.closed = true;
    const gone = new WebcapError('unavailable', 'the extractor threads are closed');
    for (const task of this.queue.splice(0)) task.reject(gone);
    await Promise.all(
      this.threads.splice(0).map((thread) => {
        this.finish(thread)?.reject(gone);
        return thread.worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let thread = this.threads.find((candidate) => candidate.task === null);
      if (thread === undefined && this.threads.length < this.options.threads) thread = this.start();
      if (thread === undefined) return;
      const task = this.queue.shift() as Task;
      thread.task = task;
      thread.timer = setTimeout(() => this.overrun(thread), this.options.taskTimeoutMs);
      thread.worker.postMessage({ id: task.id, task: task.task, input: task.input } satisfies TaskRequest);
    }
  }

  private start(): Thread {
    const thread: Thread = { worker: spawnWorker(this.options.maxHeapMb), task: null, timer: null };
    thread.worker.on('message', (reply: TaskReply) => {
      const task = this.finish(thread);
      if (task === null || task.id !== reply.id) return;
      if (reply.ok) task.resolve(reply.value);
      else
        task.reject(
          new WebcapError('internal', 'page extraction failed', { cause: new Error(reply.message) }),
        );
      this.dispatch();
    });
    // A thread that dies (out of heap, a crash) takes only its own page with it.
    thread.worker.on('error', (error) =>
      this.replace(thread, new WebcapError('internal', 'page extraction failed', { cause: error })),
    );
    thread.worker.on('exit', () =>
      this.replace(thread, new WebcapError('internal', 'page extraction failed')),
    );
    this.threads.push(thread);
    return thread;
  }

  private overrun(thread: Thread): void {
    const limit = this.options.taskTimeoutMs;
    this.replace(thread, new WebcapError('timeout', `page extraction took longer than ${limit} ms`));
    void thread.worker.terminate();
  }

  /** Drops a thread that can no longer be trusted, failing its page, and carries on with a fresh one. */
  private replace(thread: Thread, error: WebcapError): void {
    const index = this.threads.indexOf(thread);
    if (index === -1) return;
    this.threads.splice(index, 1);
    this.finish(thread)?.reject(error);
    if (!this.closed) this.dispatch();
  }

  private finish(thread: Thread): Task | null {
    const { task } = thread;
    if (thread.timer !== null) clearTimeout(thread.timer);
    thread.task = null;
    thread.timer = null;
    return task;
  }
}
