import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FrameWriter } from '../../browser/record-frames.js';
import { invalidParam, WebcapError } from '../../errors.js';
import type { AnimatedFormat } from './params.js';

/** Where Debian's ffmpeg package puts it. */
export const DEFAULT_FFMPEG_PATH = '/usr/bin/ffmpeg';

/** What animated captures run with: Debian's ffmpeg and the bound on what it writes. */
export interface AnimationDeps {
  readonly ffmpegPath: string;
  /** A recording larger than this is refused (ANIMATION_MAX_MB). */
  readonly maxBytes: number;
  /** Milliseconds on a monotonic clock: paces the frames against the page's own time. */
  readonly clockMs: () => number;
  /** RENDER_TIMEOUT_MS: with the recording's own time, how long ffmpeg may run before it is killed. */
  readonly renderTimeoutMs: number;
}

/**
 * Frames per second of each format. The file holds exactly `duration × rate` frames, so it
 * plays exactly the asked duration whatever the machine's speed. GIF stores delays in
 * hundredths of a second: 10 fps is an exact 10 of them per frame.
 */
export const FRAME_RATES: Readonly<Record<AnimatedFormat, number>> = { mp4: 15, webm: 15, gif: 10 };

/** yuv420p, which every player decodes, needs even sides: an odd pixel at the edge is cut. */
const EVEN_SIDES = 'crop=trunc(iw/2)*2:trunc(ih/2)*2';

/*
 * Encoders chosen for speed on a shared machine, not the smallest file: x264's veryfast preset,
 * VP9 in real-time mode, and a GIF palette made per frame (one palette for the whole stream
 * would make ffmpeg hold every frame in memory until the end).
 */
const OUTPUT_ARGS: Readonly<Record<AnimatedFormat, readonly string[]>> = {
  mp4: [
    ...['-vf', EVEN_SIDES, '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23'],
    ...['-pix_fmt', 'yuv420p', '-movflags', '+faststart', '-f', 'mp4'],
  ],
  webm: [
    ...['-vf', EVEN_SIDES, '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8'],
    ...['-b:v', '0', '-crf', '35', '-pix_fmt', 'yuv420p', '-f', 'webm'],
  ],
  gif: [
    ...['-vf', 'split[a][b];[a]palettegen=stats_mode=single[p];[b][p]paletteuse=new=1'],
    ...['-loop', '0', '-f', 'gif'],
  ],
};

/** The size of the frames once encoded: even sides for the video formats. */
export function encodedSize(
  format: AnimatedFormat,
  frame: { width: number; height: number },
): { width: number; height: number } {
  if (format === 'gif') return frame;
  return { width: frame.width - (frame.width % 2), height: frame.height - (frame.height % 2) };
}

const STDERR_KEPT_CHARS = 2000;

/** How ffmpeg ended. */
interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

function exitOf(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
}

/**
 * Runs `record` with a sink that streams its JPEG frames into ffmpeg's standard input, and gives
 * the encoded file with what `record` gave. ffmpeg reads only that pipe and writes only an
 * owner-only file in a private temporary directory, removed afterwards (MP4's index goes at the
 * front, which needs a file it can seek in, not a pipe); it stops writing at `deps.maxBytes` (a
 * larger recording is a 400), and is killed after `timeoutMs` or when `record` fails.
 */
export async function encodeAnimation<T>(
  deps: AnimationDeps,
  format: AnimatedFormat,
  timeoutMs: number,
  record: (sink: FrameWriter) => Promise<T>,
): Promise<{ readonly bytes: Buffer; readonly recorded: T }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'webcap-animation-'));
  try {
    const output = path.join(dir, `capture.${format}`);
    await fs.writeFile(output, '', { mode: 0o600 });
    const child = spawn(
      deps.ffmpegPath,
      [
        ...['-hide_banner', '-loglevel', 'error', '-y', '-protocol_whitelist', 'pipe,file'],
        ...['-f', 'image2pipe', '-c:v', 'mjpeg', '-framerate', String(FRAME_RATES[format])],
        ...['-i', 'pipe:0', '-threads', '2', ...OUTPUT_ARGS[format], '-fs', String(deps.maxBytes + 1)],
        output,
      ],
      { stdio: ['pipe', 'ignore', 'pipe'] },
    );
    const exited = exitOf(child).catch((error: unknown) => {
      throw new WebcapError('unavailable', 'animated captures need ffmpeg, which could not be started', {
        retryAfterSeconds: 60,
        cause: error,
      });
    });
    exited.catch(() => undefined);
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT_CHARS);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const stdin = child.stdin;
    // Writes after ffmpeg has gone fail with EPIPE; its exit says why.
    stdin?.on('error', () => undefined);
    const sink: FrameWriter = {
      async write(frame) {
        if (stdin === null || stdin.writableEnded || child.exitCode !== null || child.signalCode !== null) {
          // A spawn that failed rejects `exited` with its own error; else ffmpeg said why it stopped.
          await exited;
          throw new Error(`ffmpeg ended before the recording did: ${stderr.trim()}`);
        }
        if (!stdin.write(frame)) {
          await Promise.race([new Promise((resolve) => stdin.once('drain', resolve)), exited]);
        }
      },
    };
    // ffmpeg stops at the size limit (-fs) and exits, maybe while frames are still coming: whatever
    // failed then, the answer is that the recording is too large.
    const overLimit = async () => (await fs.stat(output)).size > deps.maxBytes;
    const tooLarge = () =>
      invalidParam(
        'duration',
        `gives a recording larger than ${deps.maxBytes} bytes (ANIMATION_MAX_MB): ask for a shorter one or a smaller viewport`,
      );
    let recorded: T;
    try {
      recorded = await record(sink);
      stdin?.end();
      const { code, signal } = await exited;
      if (timedOut) {
        throw new WebcapError('timeout', `the recording was not encoded within ${timeoutMs} ms`);
      }
      if (code !== 0) throw new Error(`ffmpeg exited with ${code ?? signal}: ${stderr.trim()}`);
    } catch (error) {
      if (!timedOut && (await overLimit())) throw tooLarge();
      throw error;
    } finally {
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    if (await overLimit()) throw tooLarge();
    return { bytes: await fs.readFile(output), recorded };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
