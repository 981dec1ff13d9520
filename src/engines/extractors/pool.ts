import { type ChildProcess, fork } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { WebcapError } from '../../errors.js';
import type { TaskInput, TaskName, TaskOutput } from './tasks.js';
import { READY, type TaskReply, type TaskRequest } from './worker-protocol.js';

/** The least time a new process has to load its modules; a start that takes longer is broken. */
const START_TIMEOUT_MS = 120_000;

export interface ExtractorPoolOptions {
  /** Extractor processes working at once. */
  readonly threads: number;
  /** Extractions that may wait for a process; past it, 503. */
  readonly maxQueue: number;
  /** Longest one task may take; its process is killed and replaced past it. */
  readonly taskTimeoutMs: number;
  /** V8 heap of one extractor process, in MB: a page that needs more fails alone, the service lives on. */
  readonly maxHeapMb: number;
  /** Where a line the libraries print in an extractor process goes (the structured log, at debug). */
  readonly output?: (line: string, stream: 'stdout' | 'stderr') => void;
}

interface Task {
  readonly id: number;
  readonly task: TaskName;
  readonly input: unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

interface Extractor {
  readonly child: ChildProcess;
  /** It has loaded the extraction modules and takes tasks; deadlines count from here. */
  ready: boolean;
  task: Task | null;
  timer: NodeJS.Timeout | null;
}

/**
 * One extractor process. A process, not a worker thread: V8 aborts the whole process when an
 * isolate runs out of heap in some allocation paths (a WeakMap growing, a large array), whatever
 * a thread's resourceLimits say, so only a process boundary keeps a hostile page from ending the
 * service. Under tsx (dev, tests) the .ts source runs through tsx's loader.
 */
function spawnExtractor(maxHeapMb: number): ChildProcess {
  const compiled = import.meta.url.endsWith('.js');
  const entry = fileURLToPath(new URL(compiled ? './worker.js' : './worker.ts', import.meta.url));
  const execArgv = [`--max-old-space-size=${maxHeapMb}`, ...(compiled ? [] : ['--import', 'tsx'])];
  // Without its cache, tsx leaves no directory behind in the temp dir (the tests check it).
  const env = compiled ? process.env : { ...process.env, TSX_DISABLE_CACHE: '1' };
  return fork(entry, [], {
    execArgv,
    env,
    serialization: 'advanced',
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
}

/**
 * Processes that turn rendered pages into content and analyses (tasks.ts), so that parsing and
 * extraction (tens to hundreds of ms of CPU per page) never hold up the event loop that answers
 * other calls; the content and analyze engines share them.
 * Bounded: a fixed number of processes, a bounded queue, a deadline and a heap limit per page; a
 * process that overruns or dies is replaced and only its page fails.
 */
export class ExtractorPool {
  private readonly extractors: Extractor[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ExtractorPoolOptions) {}

  /** Runs one task in a free process; 503 when the queue is full, 500 timeout past taskTimeoutMs. */
  run<K extends TaskName>(task: K, input: TaskInput<K>): Promise<TaskOutput<K>> {
    if (this.closed)
      return Promise.reject(new WebcapError('unavailable', 'the extractor processes are closed'));
    const { busy, queued } = this.state();
    // Tasks waiting for a process that is still starting count against the queue.
    if (busy + queued >= this.options.threads + this.options.maxQueue) {
      return Promise.reject(
        new WebcapError('unavailable', 'the extractor processes are busy; retry shortly', {
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
    return {
      busy: this.extractors.filter((extractor) => extractor.task !== null).length,
      queued: this.queue.length,
    };
  }

  /** Stops every process; waiting and running extractions fail. */
  async close(): Promise<void> {
    this.closed = true;
    const gone = new WebcapError('unavailable', 'the extractor processes are closed');
    for (const task of this.queue.splice(0)) task.reject(gone);
    await Promise.all(
      this.extractors.splice(0).map((extractor) => {
        this.finish(extractor)?.reject(gone);
        return kill(extractor.child);
      }),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      if (this.extractors.length < this.options.threads) this.start();
      const extractor = this.extractors.find((candidate) => candidate.ready && candidate.task === null);
      if (extractor === undefined) return;
      const task = this.queue.shift() as Task;
      const running = extractor;
      running.task = task;
      running.timer = setTimeout(() => this.overrun(running), this.options.taskTimeoutMs);
      running.child.send(
        { id: task.id, task: task.task, input: task.input } satisfies TaskRequest,
        (error) => {
          // The process died before it could take the page (its exit replaces it).
          if (error) this.replace(running, failed(error));
        },
      );
    }
  }

  private start(): Extractor {
    const extractor: Extractor = {
      child: spawnExtractor(this.options.maxHeapMb),
      ready: false,
      task: null,
      timer: null,
    };
    const { child } = extractor;
    // Loading the modules is not a page's time, but it is bounded too: apart, because a start on
    // a loaded machine can take longer than a page's deadline, and failing the page waiting for it
    // would turn the machine's load into a 500.
    extractor.timer = setTimeout(
      () => void kill(child),
      Math.max(this.options.taskTimeoutMs, START_TIMEOUT_MS),
    );
    for (const stream of ['stdout', 'stderr'] as const) {
      forEachLine(child[stream], (line) => this.options.output?.(line, stream));
    }
    child.on('message', (reply: TaskReply | typeof READY) => {
      if (reply === READY) {
        this.finish(extractor);
        extractor.ready = true;
        this.dispatch();
        return;
      }
      const task = extractor.task;
      if (task === null || task.id !== reply.id) return;
      this.finish(extractor);
      if (reply.ok) task.resolve(reply.value);
      else task.reject(failed(new Error(reply.message)));
      this.dispatch();
    });
    // A process that dies (out of heap, a crash) takes only its own page with it.
    child.on('error', (error) => this.replace(extractor, failed(error)));
    child.on('exit', (code, signal) =>
      this.replace(extractor, failed(new Error(`extractor exited (${signal ?? code})`))),
    );
    this.extractors.push(extractor);
    return extractor;
  }

  private overrun(extractor: Extractor): void {
    const limit = this.options.taskTimeoutMs;
    this.replace(extractor, new WebcapError('timeout', `page extraction took longer than ${limit} ms`));
    void kill(extractor.child);
  }

  /** Drops a process that can no longer be trusted, failing its page, and carries on with a fresh one. */
  private replace(extractor: Extractor, error: WebcapError): void {
    const index = this.extractors.indexOf(extractor);
    if (index === -1) return;
    this.extractors.splice(index, 1);
    // A process that could not even start fails the page waiting longest, so that a broken
    // install ends in errors rather than in processes started for ever.
    const running = this.finish(extractor);
    const task = extractor.ready ? running : this.queue.shift();
    task?.reject(error);
    void kill(extractor.child);
    if (!this.closed) this.dispatch();
  }

  private finish(extractor: Extractor): Task | null {
    const { task } = extractor;
    if (extractor.timer !== null) clearTimeout(extractor.timer);
    extractor.task = null;
    extractor.timer = null;
    return task;
  }
}

const LINE_MAX_CHARS = 2000;

/**
 * Calls `each` with every line of `stream`, each cut at LINE_MAX_CHARS: what a library prints may
 * hold page text, and a line that never ends must not grow without bound in this process.
 */
function forEachLine(stream: Readable | null, each: (line: string) => void): void {
  if (stream === null) return;
  stream.setEncoding('utf8');
  let line = '';
  stream.on('data', (chunk: string) => {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      each((line + chunk.slice(start, end)).slice(0, LINE_MAX_CHARS));
      line = '';
      start = end + 1;
    }
    if (line.length < LINE_MAX_CHARS) line += chunk.slice(start, start + LINE_MAX_CHARS - line.length);
  });
  stream.on('end', () => {
    if (line !== '') each(line);
  });
}

function failed(cause: Error): WebcapError {
  return new WebcapError('internal', 'page extraction failed', { cause });
}

/** Ends a process and waits for it to be gone; SIGKILL, since it may be stuck in a loop. */
function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
