/** What `within` rejects with when its time is up. */
export class NoAnswer extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'NoAnswer';
  }
}

/** The promise's value, or a NoAnswer once `timeoutMs` has passed without one. */
export async function within<T>(timeoutMs: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswer(timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
