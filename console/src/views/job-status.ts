import type { JobStatus } from '../api/types.ts';
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
