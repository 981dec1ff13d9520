/**
 * Counting distinct strings in bounded memory, for sitemap links past SITEMAP_MAX_LINKS: a site can
 * list tens of millions, and a set of them (even of their hashes) took a gigabyte and hit V8's
 * limit of 2^24 entries per Set.
 */

// HyperLogLog with 2^14 one-byte registers (Flajolet et al. 2007): 16 KiB, standard error 1.04/√m ≈ 0.8 %.
const INDEX_BITS = 14;
const REGISTERS = 1 << INDEX_BITS;
// A 53-bit hash: the top 14 bits pick the register, the other 39 give the rank.
const RANK_BITS = 53 - INDEX_BITS;
const RANK_SPAN = 2 ** RANK_BITS;
const ALPHA = 0.7213 / (1 + 1.079 / REGISTERS);

/** A 53-bit string hash (cyrb53, public domain). */
function hash53(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (0x1fffff & h2) + (h1 >>> 0);
}

/** The position of the first 1 bit in the 39-bit `rest`, counted from 1 at the top; 40 when it is 0. */
function rank(rest: number): number {
  const high = Math.floor(rest / 2 ** 32); // the top 7 bits
  if (high !== 0) return Math.clz32(high) - 25 + 1;
  return 7 + Math.clz32(rest >>> 0) + 1;
}

/**
 * Distinct strings counted by their 53-bit hash: exactly while at most `exactLimit` were seen
 * (a collision undercounts by one, odds about 2e-7 at that size), then as a HyperLogLog estimate,
 * the exact hashes dropped. Memory never passes `exactLimit` numbers and 16 KiB.
 */
export class DistinctCount {
  private exact: Set<number> | null = new Set();
  private readonly registers = new Uint8Array(REGISTERS);

  constructor(private readonly exactLimit: number) {}

  add(text: string): void {
    const hash = hash53(text);
    const register = Math.floor(hash / RANK_SPAN);
    const value = rank(hash % RANK_SPAN);
    if (value > (this.registers[register] as number)) this.registers[register] = value;
    if (this.exact === null) return;
    this.exact.add(hash);
    if (this.exact.size > this.exactLimit) this.exact = null;
  }

  /** Whether `size` is an estimate (more than exactLimit distinct strings were added). */
  get estimated(): boolean {
    return this.exact === null;
  }

  /** The distinct strings added: exact, or the estimate once `estimated`. */
  get size(): number {
    if (this.exact !== null) return this.exact.size;
    let sum = 0;
    let zeros = 0;
    for (const value of this.registers) {
      sum += 2 ** -value;
      if (value === 0) zeros++;
    }
    const raw = (ALPHA * REGISTERS * REGISTERS) / sum;
    // Small-range correction (linear counting), as in the paper.
    const estimate = raw <= 2.5 * REGISTERS && zeros > 0 ? REGISTERS * Math.log(REGISTERS / zeros) : raw;
    // Only past exactLimit is the estimate asked for; it never reports fewer than were counted exactly.
    return Math.max(this.exactLimit + 1, Math.round(estimate));
  }
}
