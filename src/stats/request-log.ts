import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import { timeOrderedId } from '../store/ids.js';
import type { RequestLogTable } from '../store/schema.js';
import { addToMinuteTotals } from './snapshot.js';

export type RequestLogEntry = Omit<RequestLogTable, 'id'>;

/**
 * Records every authenticated call. Rows are buffered and written in batches off the request
 * path, so logging costs a push on the hot path; `close` writes what is left. Each batch adds to
 * the per-minute totals the stats snapshot reads, in the same transaction.
 */
export class RequestLog {
  private buffer: RequestLogTable[] = [];
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    flushIntervalMs = 500,
    private readonly maxBatch = 500,
  ) {
    this.timer = setInterval(() => void this.flush(), flushIntervalMs);
    this.timer.unref();
  }

  record(entry: RequestLogEntry): void {
    this.buffer.push({ id: timeOrderedId('req'), ...entry });
    if (this.buffer.length >= this.maxBatch) void this.flush();
  }

  /** Writes the buffered rows; resolves when they, and any earlier batch, are stored. */
  flush(): Promise<void> {
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.flushing.then(async () => {
      if (batch.length === 0) return;
      try {
        await this.db.transaction().execute(async (trx) => {
          await trx.insertInto('request_log').values(batch).execute();
          await addToMinuteTotals(trx, batch);
        });
      } catch (error) {
        this.logger.error({ err: error, rows: batch.length }, 'request log write failed');
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
