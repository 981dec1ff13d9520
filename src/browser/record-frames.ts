import type { Page } from 'puppeteer-core';

/** Where the frames go, one per slot, in order (the encoder's standard input). */
export interface FrameWriter {
  write(frame: Buffer): Promise<void>;
}

/** How a recording is taken. */
export interface Recording {
  readonly scenario: 'default' | 'scroll';
  /** Frames in the file: its duration times its frame rate. */
  readonly frames: number;
  readonly framesPerSecond: number;
  /** Scrolling stops at this many CSS pixels, as full-page captures do. */
  readonly maxScrollPx: number;
  /** Milliseconds on a monotonic clock. */
  readonly clockMs: () => number;
}

/** JPEG keeps each frame small on its way to the encoder, which re-encodes it anyway. */
const FRAME_QUALITY = 90;

async function frame(page: Page): Promise<Buffer> {
  return Buffer.from(await page.screenshot({ type: 'jpeg', quality: FRAME_QUALITY, optimizeForSpeed: true }));
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/**
 * The page as it moves by itself: the frame in slot i of the file is shot no earlier than i / rate
 * seconds after the start. A machine too slow to shoot every slot repeats the frame before, so
 * the file keeps its length and the page its pace; the last slot always gets a frame of its own.
 */
async function recordAsItPlays(page: Page, recording: Recording, out: FrameWriter): Promise<Buffer> {
  const { frames, framesPerSecond, clockMs } = recording;
  const start = clockMs();
  const slotNow = () => Math.floor(((clockMs() - start) * framesPerSecond) / 1000);
  let written = 0;
  let last = await frame(page);
  await out.write(last);
  written += 1;
  while (written < frames) {
    await sleep(start + (written * 1000) / framesPerSecond - clockMs());
    const slot = Math.min(slotNow(), frames - 1);
    for (; written < slot; written += 1) await out.write(last);
    last = await frame(page);
    await out.write(last);
    written += 1;
  }
  return last;
}

/**
 * The page scrolled from the top to the bottom at a steady pace: slot i shows the page scrolled
 * i / (frames - 1) of the way, so the first frame is the top and the last the bottom whatever the
 * machine's speed. Frames are not taken faster than the frame rate, so lazy content has the time a
 * reader scrolling the page would give it.
 */
async function recordScrolling(page: Page, recording: Recording, out: FrameWriter): Promise<Buffer> {
  const { frames, framesPerSecond, clockMs, maxScrollPx } = recording;
  const range = await page.evaluate((max: number) => {
    const height = Math.max(
      document.documentElement.scrollHeight,
      document.body?.scrollHeight ?? 0,
      window.innerHeight,
    );
    return Math.max(0, Math.min(height, max) - window.innerHeight);
  }, maxScrollPx);
  const start = clockMs();
  let last: Buffer | null = null;
  for (let i = 0; i < frames; i += 1) {
    await sleep(start + (i * 1000) / framesPerSecond - clockMs());
    const top = frames === 1 ? 0 : Math.round((range * i) / (frames - 1));
    await page.evaluate((y: number) => window.scrollTo({ top: y, left: 0, behavior: 'instant' }), top);
    last = await frame(page);
    await out.write(last);
  }
  if (last === null) throw new Error('a recording has at least one frame');
  return last;
}

/** Records the loaded page as `recording` asks into `out`; gives the last frame (its size is the recording's). */
export function recordFrames(page: Page, recording: Recording, out: FrameWriter): Promise<Buffer> {
  return recording.scenario === 'scroll'
    ? recordScrolling(page, recording, out)
    : recordAsItPlays(page, recording, out);
}
