import type { CrawlStatus, JobStatus } from '../api/types.ts';
import type { Tone } from '../components/badge.tsx';

/** A job's status as a badge tone. */
export function jobTone(status: JobStatus): Tone {
  switch (status) {
    case 'completed':
      return 'good';
    case 'failed':
      return 'bad';
    case 'running':
      return 'info';
    case 'queued':
      return 'neutral';
  }
}

/** A crawl's or batch's status as a badge tone: stopped (the balance ran out, the key went) warns. */
export function crawlTone(status: CrawlStatus): Tone {
  switch (status) {
    case 'cancelled':
      return 'neutral';
    case 'stopped':
      return 'warn';
    default:
      return jobTone(status);
  }
}
