import type { Write } from './admin.js';

/** How often the elapsed time is redrawn. */
const REDRAW_MS = 100;

/** Carriage return and erase to the end of the line: the progress line is redrawn in place. */
const CLEAR_LINE = '\r\x1b[K';

/**
 * Shows `label 1.2s` on stderr, redrawn in place, until the returned stop is called (which
 * erases it). Only on a terminal: in a pipe or a log, progress lines would be noise, so
 * `enabled` false writes nothing at all.
 */
export function showProgress(
  write: Write,
  enabled: boolean,
  label: string,
  now: () => number = () => performance.now(),
): () => void {
  if (!enabled) return () => {};
  const started = now();
  const draw = () => write(`${CLEAR_LINE}${label} ${((now() - started) / 1000).toFixed(1)}s`);
  draw();
  const timer = setInterval(draw, REDRAW_MS);
  return () => {
    clearInterval(timer);
    write(CLEAR_LINE);
  };
}

/** Cells of the count bar. */
const BAR_CELLS = 24;

/**
 * A bar of `done` out of `total` on stderr (`crawl [#####.....] 12/40 pages`), redrawn in place
 * at each `update` and erased by `stop`; as showProgress, only on a terminal.
 */
export function showCount(
  write: Write,
  enabled: boolean,
  label: string,
): { update(done: number, total: number): void; stop(): void } {
  if (!enabled) return { update: () => {}, stop: () => {} };
  return {
    update(done, total) {
      const filled = total <= 0 ? 0 : Math.min(BAR_CELLS, Math.round((done / total) * BAR_CELLS));
      write(
        `${CLEAR_LINE}${label} [${'#'.repeat(filled)}${'.'.repeat(BAR_CELLS - filled)}] ${done}/${total} pages`,
      );
    },
    stop: () => write(CLEAR_LINE),
  };
}
