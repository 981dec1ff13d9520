/** Synchronous work that must run however the bench ends: a child to stop, a worktree to remove. */
type Hook = () => void;

const hooks = new Set<Hook>();
let installed = false;

// Node runs no 'exit' listener when a signal ends the process by its default action; exiting from
// a handler instead runs them, with the status a shell reports for that signal (128 + its number).
const SIGNALS = [
  ['SIGINT', 2],
  ['SIGTERM', 15],
  ['SIGHUP', 1],
] as const;

function runHooks(): void {
  for (const hook of [...hooks].reverse()) {
    hooks.delete(hook);
    try {
      hook();
    } catch (error) {
      console.error(error);
    }
  }
}

/**
 * Runs `hook` when this process exits, normally, by an uncaught error or on Ctrl-C, SIGTERM or
 * SIGHUP, hooks registered last first. Returns a function that unregisters it (call it once the
 * thing is closed the ordinary way).
 */
export function onExit(hook: Hook): () => void {
  if (!installed) {
    installed = true;
    process.once('exit', runHooks);
    for (const [signal, number] of SIGNALS) process.once(signal, () => process.exit(128 + number));
  }
  hooks.add(hook);
  return () => {
    hooks.delete(hook);
  };
}
