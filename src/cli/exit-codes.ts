/**
 * The exit codes of every `webcap` command (docs/cli.md), so that a script can tell a mistake of
 * its own from a refusal and from a failure worth retrying.
 */
export const EXIT = {
  ok: 0,
  /** The API refused the call (4xx), or an admin operation was refused. */
  refused: 1,
  /** A usage mistake (unknown option, bad value) or a configuration error; nothing was sent. */
  usage: 2,
  /** The server failed (5xx), could not be reached, or a wait ran out of time. */
  failed: 3,
  /** Interrupted by Ctrl-C (128 + SIGINT, as shells report it), after undoing what it started. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code of an HTTP status the API answered with: 4xx refused, anything else failed. */
export function exitCodeOfStatus(status: number): ExitCode {
  return status >= 400 && status < 500 ? EXIT.refused : EXIT.failed;
}

/** What `webcap --help` says about exit codes. */
export const EXIT_CODES_HELP = `
Exit codes:
  0  ok
  1  the API refused the call (4xx), or an admin operation was refused
  2  usage or configuration error (nothing was sent)
  3  server error (5xx), network error or timeout
  130  interrupted (Ctrl-C); crawl-site cancels its crawl first`;
