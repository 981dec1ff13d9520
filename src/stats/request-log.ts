import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import { timeOrderedId } from '../store/ids.js';
import { olderThan, type Page, type PageRequest, pageOf } from '../store/pages.js';
import { columnsOf, insertRows } from '../store/row-inserts.js';
import type { RequestLogTable } from '../store/schema.js';
import { loggedError, loggedTargetUrl } from './logged-target.js';
import { addToMinuteTotals } from './snapshot.js';

/**
 * One call as its door records it. `target_url` is the target as the caller gave it (null when the
 * call has none): it is redacted and bounded when the row is written, not here, so that recording
 * costs the hot path nothing beyond the row itself. `error` is the failed call's error text.
 */
export type RequestLogEntry = Omit<RequestLogTable, 'id'>;

/** Rows per insert, at most: a power of two, as powerOfTwoChunks takes. */
const ROWS_PER_INSERT = 128;

/** The request log's columns, in the order its inserts bind them. */
export const REQUEST_LOG_COLUMNS = columnsOf<RequestLogTable>({
  id: true,
  account_id: true,
  key_id: true,
  engine: true,
  path: true,
  status: true,
  duration_ms: true,
  billed: true,
  created_at: true,
  target_url: true,
  error: true,
});

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
      for (const row of batch) {
        row.target_url = loggedTargetUrl(row.target_url);
        row.error = loggedError(row.error);
      }
      try {
        await this.db.transaction().execute(async (trx) => {
          await insertRows(trx, 'request_log', REQUEST_LOG_COLUMNS, batch, ROWS_PER_INSERT);
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

/** A status code (`402`) or a class of them (`4xx`), as the request-log filters take it. */
export type StatusFilter = number | `${1 | 2 | 3 | 4 | 5}xx`;

/** Which rows of the request log: all filters optional; `since` inclusive, `until` exclusive. */
export interface RequestFilter {
  readonly accountId?: string;
  readonly keyId?: string;
  readonly engine?: string;
  readonly status?: StatusFilter;
  readonly since?: string;
  readonly until?: string;
}

/** A row of the request log with its key and account, as the console lists it. */
export interface LoggedRequest {
  readonly id: string;
  readonly createdAt: string;
  readonly accountSlug: string | null;
  readonly engine: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  readonly billed: boolean;
  readonly key: { readonly id: string; readonly alias: string; readonly prefix: string };
  /** The call's target URL, redacted; null when it had none. */
  readonly targetUrl: string | null;
  /** The error text of a failed call; null when it succeeded. */
  readonly error: string | null;
}

/**
 * A page of the request log, newest first. With an account or a key the rows are read by the
 * (account_id or key_id, created_at) index; without, by created_at; every page is bounded.
 */
export async function listRequests(
  db: Db,
  filter: RequestFilter,
  page: PageRequest,
): Promise<Page<LoggedRequest>> {
  let query = db
    .selectFrom('request_log')
    .leftJoin('api_keys', 'api_keys.id', 'request_log.key_id')
    .leftJoin('accounts', 'accounts.id', 'request_log.account_id')
    .selectAll('request_log')
    .select(['api_keys.alias', 'api_keys.key_prefix', 'accounts.slug as account_slug'])
    .orderBy('request_log.created_at', 'desc')
    .orderBy('request_log.id', 'desc')
    .limit(page.limit + 1);
  if (filter.accountId !== undefined) query = query.where('request_log.account_id', '=', filter.accountId);
  if (filter.keyId !== undefined) query = query.where('request_log.key_id', '=', filter.keyId);
  if (filter.engine !== undefined) query = query.where('request_log.engine', '=', filter.engine);
  if (filter.since !== undefined) query = query.where('request_log.created_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('request_log.created_at', '<', filter.until);
  const status = filter.status;
  if (typeof status === 'number') query = query.where('request_log.status', '=', status);
  else if (status !== undefined) {
    const low = Number(status[0]) * 100;
    query = query.where('request_log.status', '>=', low).where('request_log.status', '<', low + 100);
  }
  if (page.before !== undefined) {
    query = query.where(olderThan('request_log.created_at', 'request_log.id', page.before));
  }
  const rows = await query.execute();
  return pageOf(
    rows,
    page.limit,
    (row) => ({ at: row.created_at, id: row.id }),
    (row) => ({
      id: row.id,
      createdAt: row.created_at,
      accountSlug: row.account_slug,
      engine: row.engine,
      path: row.path,
      status: row.status,
      durationMs: row.duration_ms,
      billed: row.billed === 1,
      key: { id: row.key_id, alias: row.alias ?? '', prefix: row.key_prefix ?? '' },
      targetUrl: row.target_url,
      error: row.error,
    }),
  );
}

/** One UTC day of calls: how many, how many billed, by engine and by status class (`2xx`). */
export interface DailyCalls {
  readonly date: string;
  readonly calls: number;
  readonly billed: number;
  readonly by_engine: Record<string, number>;
  readonly by_status: Record<string, number>;
}

/**
 * Calls per UTC day for the `days` days ending with `now`'s, oldest first, every day present
 * (zeros on a day without calls): the request log's rows of an account, or of all, grouped in
 * the database by day, engine and status class.
 */
export async function dailyCalls(
  db: Db,
  filter: { readonly accountId?: string },
  days: number,
  now: Date,
): Promise<DailyCalls[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const first = today - (days - 1) * 86_400_000;
  const day = sql<string>`substr(request_log.created_at, 1, 10)`;
  const statusClass = sql<number>`request_log.status / 100`;
  let query = db
    .selectFrom('request_log')
    .select((eb) => [
      day.as('day'),
      'request_log.engine',
      statusClass.as('class'),
      eb.fn.countAll<number>().as('calls'),
      eb.fn.sum<number>('request_log.billed').as('billed'),
    ])
    .where('request_log.created_at', '>=', new Date(first).toISOString())
    .groupBy([day, 'request_log.engine', statusClass]);
  if (filter.accountId !== undefined) query = query.where('request_log.account_id', '=', filter.accountId);
  const rows = await query.execute();
  const byDate = new Map<string, DailyCalls>();
  for (let i = 0; i < days; i += 1) {
    const date = new Date(first + i * 86_400_000).toISOString().slice(0, 10);
    byDate.set(date, { date, calls: 0, billed: 0, by_engine: {}, by_status: {} });
  }
  for (const row of rows) {
    const entry = byDate.get(row.day);
    if (entry === undefined) continue;
    const calls = Number(row.calls);
    const status = `${Number(row.class)}xx`;
    byDate.set(row.day, {
      ...entry,
      calls: entry.calls + calls,
      billed: entry.billed + Number(row.billed ?? 0),
      by_engine: { ...entry.by_engine, [row.engine]: (entry.by_engine[row.engine] ?? 0) + calls },
      by_status: { ...entry.by_status, [status]: (entry.by_status[status] ?? 0) + calls },
    });
  }
  return [...byDate.values()];
}

/** When each key last made a call, by key id (absent: never, within the log's retention). */
export async function lastUsed(db: Db, keyIds: readonly string[]): Promise<Map<string, string>> {
  // One lookup per key on the (key_id, created_at) index: a key's newest row, not all of them.
  const found = await Promise.all(
    keyIds.map((id) =>
      db
        .selectFrom('request_log')
        .select('created_at')
        .where('key_id', '=', id)
        .orderBy('created_at', 'desc')
        .limit(1)
        .executeTakeFirst()
        .then((row) => [id, row?.created_at] as const),
    ),
  );
  return new Map(found.filter((entry): entry is readonly [string, string] => entry[1] !== undefined));
}

/** Calls per account since an instant, by account id. */
export async function callsSince(db: Db, since: Date): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('request_log')
    .select((eb) => ['account_id', eb.fn.countAll<number>().as('n')])
    .where('created_at', '>=', since.toISOString())
    .groupBy('account_id')
    .execute();
  return new Map(rows.map((row) => [row.account_id, Number(row.n)]));
}
