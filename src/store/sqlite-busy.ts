import {
  CompiledQuery,
  type DatabaseConnection,
  type QueryResult,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import { WebcapError } from '../errors.js';

/** First wait after SQLITE_BUSY, doubling up to the next: short, since most writes hold the lock briefly. */
const FIRST_WAIT_MS = 5;
const LONGEST_WAIT_MS = 100;
const BUSY_RETRY_AFTER_SECONDS = 1;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SQLITE_BUSY and its extended codes: another connection (another process) holds the lock. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Runs a statement, and runs it again while SQLite answers busy, sleeping between tries (timers,
 * not sqlite3's own busy handler, which would spin on the event loop's thread), until `boundMs`
 * has passed: then `503 Service Unavailable: database busy`. A statement that failed busy did
 * nothing, so running it again is safe.
 */
async function whileBusy<T>(run: () => Promise<T>, boundMs: number): Promise<T> {
  const started = performance.now();
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    try {
      return await run();
    } catch (error) {
      if (!isBusy(error)) throw error;
      const left = boundMs - (performance.now() - started);
      if (left <= 0) {
        throw new WebcapError('unavailable', 'database busy', {
          retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
          cause: error,
        });
      }
      await sleep(Math.min(wait, left));
    }
  }
}

/** The dialect's one connection, its statements run through whileBusy. */
class WaitingConnection implements DatabaseConnection {
  constructor(
    private readonly connection: DatabaseConnection,
    private readonly boundMs: number,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return whileBusy(async () => this.connection.executeQuery<R>(query), this.boundMs);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.connection.streamQuery<R>(query, chunkSize);
  }
}

class WaitingDriver extends SqliteDriver {
  private waiting: WaitingConnection | null = null;

  constructor(
    config: SqliteDialectConfig,
    private readonly boundMs: number,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.waiting ??= new WaitingConnection(connection, this.boundMs);
    return this.waiting;
  }

  /**
   * Takes the write lock at the start: a deferred transaction that has read and then finds the
   * lock taken cannot wait for it (SQLITE_BUSY_SNAPSHOT: its snapshot is stale), but a `begin
   * immediate` that is busy is retried whole.
   */
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/**
 * Kysely's SQLite dialect for a database opened with `busy_timeout = 0`: a statement that finds
 * another process holding the write lock waits for it off the event loop, at most `busyTimeoutMs`
 * in all, then fails `unavailable` (503). better-sqlite3 is synchronous, and with a busy timeout
 * sqlite3 waits inside the call, holding up every request of the process for as long.
 */
export class WaitingSqliteDialect extends SqliteDialect {
  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly busyTimeoutMs: number,
  ) {
    super(config);
  }

  override createDriver(): SqliteDriver {
    return new WaitingDriver(this.config, this.busyTimeoutMs);
  }
}
