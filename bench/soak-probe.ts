import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { processTree } from '../src/browser/process-tree.js';

/** The fields of /proc/<pid>/stat the soak reads. */
export interface ProcStat {
  readonly pid: number;
  /** The command name (comm), as /proc shows it between parentheses. */
  readonly name: string;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
}

/** Parses /proc/<pid>/stat; null when the process is gone. The command name may hold spaces and parentheses. */
export function procStat(pid: number): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  return { pid, name, state: fields[0] ?? '?', ppid: Number(fields[1]), pgrp: Number(fields[2]) };
}

/** Every process on the machine, read once per sample (a few ms for a few hundred processes). */
function allProcesses(): ProcStat[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => procStat(Number(entry)))
    .filter((stat): stat is ProcStat => stat !== null);
}

/** Memory of one process from /proc/<pid>/status, in bytes. */
export interface ProcessMemory {
  /** Resident set: RssAnon + RssFile + RssShmem. */
  readonly rss: number;
  /** Anonymous resident memory: the V8 heap, malloc arenas, Buffers, thread stacks. */
  readonly rssAnon: number;
  /** Resident pages of mapped files: the node binary, shared libraries. */
  readonly rssFile: number;
  /** The highest RSS the process has had. */
  readonly hwm: number;
}

function statusKb(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** /proc/<pid>/status's memory lines; zeros when the process is gone. */
export function processMemory(pid: number): ProcessMemory {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // Gone: zeros.
  }
  return {
    rss: statusKb(status, 'VmRSS'),
    rssAnon: statusKb(status, 'RssAnon'),
    rssFile: statusKb(status, 'RssFile'),
    hwm: statusKb(status, 'VmHWM'),
  };
}

const ARENA_ALIGNMENT = 64 * 1_048_576;

/**
 * Anonymous resident memory of a process in glibc's malloc heaps, in bytes: the main heap
 * ([heap], grown with brk) and the arenas of other threads, which glibc maps at 64 MB-aligned
 * addresses (HEAP_MAX_SIZE on 64-bit). A reading of glibc's layout, not an API: the rest of the
 * anonymous memory is mostly V8's heap pages, thread stacks and large blocks malloc mapped alone.
 */
export async function mallocHeapBytes(pid: number): Promise<number> {
  let smaps: string;
  try {
    smaps = await readFile(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return 0;
  }
  let inMalloc = false;
  let kb = 0;
  for (const line of smaps.split('\n')) {
    const mapping = /^([0-9a-f]+)-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping !== null) {
      const [, start = '0', perms, name = ''] = mapping;
      const arena = name === '' && perms === 'rw-p' && Number.parseInt(start, 16) % ARENA_ALIGNMENT === 0;
      inMalloc = name === '[heap]' || arena;
    } else if (inMalloc && line.startsWith('Anonymous:')) {
      kb += Number(line.split(/\s+/)[1]);
    }
  }
  return kb * 1024;
}

/** Open file descriptors of a process, by what they point at. */
export interface OpenFds {
  readonly total: number;
  readonly sockets: number;
  readonly pipes: number;
  /** eventfd, epoll, timerfd, signalfd... */
  readonly anonInodes: number;
  /** Files and devices. */
  readonly files: number;
}

export function openFds(pid: number): OpenFds {
  let sockets = 0;
  let pipes = 0;
  let anonInodes = 0;
  let files = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // Closed between the listing and the read.
    }
    if (target.startsWith('socket:')) sockets += 1;
    else if (target.startsWith('pipe:')) pipes += 1;
    else if (target.startsWith('anon_inode:')) anonInodes += 1;
    else files += 1;
  }
  return { total: sockets + pipes + anonInodes + files, sockets, pipes, anonInodes, files };
}

/** What the service has started, and what it left behind. */
export interface TreeSnapshot {
  /** Live processes under the service, the service excluded: its browsers and their helpers. */
  readonly processes: number;
  /** Browsers (the service's children running Chromium) alive: 2 while a recycled one winds down. */
  readonly browsers: readonly number[];
  /** Sum of VmRSS over those processes; counts the pages they share once per process. */
  readonly rssSum: number;
  /** Sum of their proportional set sizes: shared pages divided among their users, counted once overall. */
  readonly pss: number;
  /** Processes in state Z whose parent is the service or one of its descendants. */
  readonly zombies: readonly ProcStat[];
  /** Live processes of the browsers' process groups outside the tree: what a recycle or crash failed to end. */
  readonly leftovers: readonly ProcStat[];
}

async function pssBytes(pid: number): Promise<number> {
  try {
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
    const match = /^Pss:\s+(\d+) kB/m.exec(rollup);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function isChromium(pid: number): boolean {
  try {
    return /chrom/.test(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return false;
  }
}

/**
 * The service's process tree and the machine's zombies and leftovers. Each Chromium leads its own
 * process group (the pool kills the group on the way out), so a member of the group of any
 * browser the service has had (`browsers`) that is no longer under the service is a leftover: a
 * recycled browser's helper still running, or one the live browser orphaned.
 */
export async function treeSnapshot(servicePid: number, browsers: ReadonlySet<number>): Promise<TreeSnapshot> {
  const members = (await processTree(servicePid)).filter((pid) => pid !== servicePid);
  const tree = new Set([servicePid, ...members]);
  const stats = allProcesses();
  const pss = await Promise.all(members.map(pssBytes));
  return {
    processes: members.length,
    browsers: members.filter((pid) => procStat(pid)?.ppid === servicePid && isChromium(pid)),
    rssSum: members.reduce((sum, pid) => sum + processMemory(pid).rss, 0),
    pss: pss.reduce((sum, bytes) => sum + bytes, 0),
    zombies: stats.filter((stat) => stat.state === 'Z' && tree.has(stat.ppid)),
    leftovers: stats.filter((stat) => browsers.has(stat.pgrp) && !tree.has(stat.pid)),
  };
}

/** The live processes of the given process groups: what is left of browsers after the service is gone. */
export function groupMembers(groups: ReadonlySet<number>): ProcStat[] {
  return allProcesses().filter((stat) => groups.has(stat.pgrp));
}

/** The V8 heap after the last full GC, in bytes, as `node --trace-gc` printed it. */
export interface HeapAfterGc {
  readonly used: number;
  readonly committed: number;
}

const MARK_COMPACT = /(?<!Minor )Mark-Compact(?: \(reduce\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \(([\d.]+)\) MB/g;
const LOG_TAIL_BYTES = 1_048_576;

/**
 * The last full GC's outcome in the service's log, when the service runs with `--trace-gc`
 * (BENCH_SERVICE_NODE_ARGS); null without it. Only the log's tail is read.
 */
export async function heapAfterLastFullGc(logFile: string): Promise<HeapAfterGc | null> {
  const file = await open(logFile);
  let text: string;
  try {
    const { size } = await file.stat();
    const start = Math.max(0, size - LOG_TAIL_BYTES);
    const { buffer, bytesRead } = await file.read(Buffer.alloc(size - start), 0, size - start, start);
    text = buffer.toString('utf8', 0, bytesRead);
  } finally {
    await file.close();
  }
  let last: RegExpExecArray | null = null;
  for (const match of text.matchAll(MARK_COMPACT)) last = match;
  if (last === null) return null;
  return { used: Number(last[1]) * 1_048_576, committed: Number(last[2]) * 1_048_576 };
}
