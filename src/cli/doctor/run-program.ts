import { execFile } from 'node:child_process';

/** Runs a program with a deadline (killed past it) and resolves with its stdout; bounded output. */
export function runProgram(file: string, args: readonly string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1_048_576, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error === null) return resolve(stdout);
        if (error.killed) return reject(new Error(`no answer within ${timeoutMs} ms`));
        // The first line of what it printed says why (a shared library missing, a bad option).
        const said = stderr.trim().split('\n')[0];
        reject(Object.assign(new Error(said || error.message), { code: error.code }));
      },
    );
  });
}
