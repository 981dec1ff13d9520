/** A closer that failed, under the name it was registered with. */
export interface CloseFailure {
  readonly name: string;
  readonly error: unknown;
}

/** Closing ran every closer, and these failed. */
export class CloseError extends AggregateError {
  constructor(readonly failures: readonly CloseFailure[]) {
    super(
      failures.map((failure) => failure.error),
      `closing failed: ${failures.map(({ name, error }) => `${name} (${error instanceof Error ? error.message : String(error)})`).join(', ')}`,
    );
    this.name = 'CloseError';
  }
}

/**
 * What a composition has opened, each with how it closes. Whatever opens something registers its
 * closer right away, so that a start that fails part way, and a shutdown, close exactly what is
 * open: latest first, since what was opened later uses what was opened before it.
 */
export class Closers {
  private readonly closers: { readonly name: string; readonly close: () => unknown }[] = [];
  private closing: Promise<void> | null = null;

  /** Registers how something just opened closes. */
  add(name: string, close: () => unknown): void {
    if (this.closing !== null) throw new Error(`${name} was opened while closing`);
    this.closers.push({ name, close });
  }

  /**
   * Runs every closer once, latest first, each one whether or not those before it failed; rejects
   * with a CloseError naming those that failed. Calling it again returns the same promise.
   */
  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<void> {
    const failures: CloseFailure[] = [];
    for (const { name, close } of this.closers.toReversed()) {
      try {
        await close();
      } catch (error) {
        failures.push({ name, error });
      }
    }
    if (failures.length > 0) throw new CloseError(failures);
  }
}

/**
 * Builds something out of parts that open resources, registering their closers on a fresh
 * Closers; when the build throws, closes what it had opened and rethrows its error (a closer
 * failing then is passed to `onCloseError`, since the build's error is the one to report).
 */
export async function buildOrUnwind<T>(
  build: (closers: Closers) => Promise<T>,
  onCloseError: (error: unknown) => void,
): Promise<T> {
  const closers = new Closers();
  try {
    return await build(closers);
  } catch (error) {
    await closers.close().catch(onCloseError);
    throw error;
  }
}
