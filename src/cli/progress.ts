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
