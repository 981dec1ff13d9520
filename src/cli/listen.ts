import { ConfigError } from '../config.js';
import type { App } from '../http/app.js';

/**
 * Listens on the configured address; a port already taken or not permitted is a configuration
 * error naming its variable, not a stack trace.
 */
export async function listen(app: App, host: string, port: number, variable: string): Promise<string> {
  try {
    return await app.listen({ host, port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') throw error;
    const why = code === 'EADDRINUSE' ? 'a free port' : 'a port this user may listen on';
    throw new ConfigError(variable, `${why} on ${host} (${code})`, String(port));
  }
}
