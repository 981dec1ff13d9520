/**
 * How long a test waits for something that must happen (a process to start, a job to end, a
 * condition to hold) before deciding it never will: far beyond any healthy run on a loaded
 * 2-core machine, where the old limits of 10-60 s were reached (issue 32), so that only a hang
 * reaches it; below vitest's test timeout (vitest.config.ts), so that the failure says what never
 * happened.
 */
export const HANG_MS = 300_000;
