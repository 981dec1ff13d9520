import { ConfigError } from '../config.js';
import type { Runtime } from '../main.js';

/**
 * Listens on the configured address; a port already taken or not permitted is a configuration
 * error naming its variable (after the runtime is closed), not a stack trace.
 */
export async function listen(
  runtime: Runtime,
  host: string,
  port: number,
  variable: string,
): Promise<string> {
  try {
    return await runtime.app.listen({ host, port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw error;
    await runtime.close();
    const why = code === 'EADDRINUSE' ? 'a free port' : 'a port this user may listen on';
    throw new ConfigError(variable, `${why} on ${host} (${code})`, String(port));
  }
}
