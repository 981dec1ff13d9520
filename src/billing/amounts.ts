/**
 * Bounds of the numbers operators give (quotas, caps, pack sizes, credit grants). Counters are
 * PostgreSQL `integer` columns, so a stored count can never pass 2^31 - 1; one amount stays well
 * below it, and a sum that would pass it (credits granted again and again) is refused.
 */
export const MAX_STORED_COUNT = 2_147_483_647;
export const MAX_AMOUNT = 1_000_000_000;
/** Calls per second or per minute an account may be capped at. */
export const MAX_RATE = 1_000_000;
