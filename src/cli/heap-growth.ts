import v8 from 'node:v8';

/**
 * Fixes how far V8 lets the old generation grow past what the last full collection kept
 * (HEAP_GROWING_PERCENT; 0 keeps V8's own choice). Under render load V8 keeps that limit at its
 * floor (1.1 × the live heap), likely because its concurrent marking looks nearly free from the
 * main thread, and marks the whole heap every second or so: about 10 ms of Node CPU a render
 * (docs/performance.md, "The heap's growth"). The flag is read at each limit's computation, so
 * setting it before the runtime starts applies to every collection after.
 */
export function setHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
