/**
 * The rows in chunks whose sizes are powers of two, largest first, none over `max` (a power of
 * two). A multi-row statement then takes one of log2(max) + 1 shapes, so that its prepared
 * statement is reused (sqlite-statements.ts) rather than prepared anew for every batch size: with
 * one statement per size, the sizes of busy batches pushed each other out of the statement cache.
 */
export function powerOfTwoChunks<T>(rows: readonly T[], max: number): T[][] {
  const chunks: T[][] = [];
  let at = 0;
  while (at < rows.length) {
    let size = max;
    while (size > rows.length - at) size /= 2;
    chunks.push(rows.slice(at, at + size));
    at += size;
  }
  return chunks;
}
