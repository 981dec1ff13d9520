/** A bench option that cannot be run as given: the bench prints the message alone and exits with 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
