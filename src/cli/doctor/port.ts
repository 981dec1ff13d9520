import net from 'node:net';
import type { Config } from '../../config.js';
import { type Check, errorCode, fail, messageOf, ok } from './check.js';

/** Null when the address can be listened on now, else the listen error's code. */
function listenError(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (error) => resolve(errorCode(error) ?? messageOf(error)));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/** True when whatever listens at host:port answers GET /healthz as webcap does. */
async function answersLikeWebcap(host: string, port: number, timeoutMs: number): Promise<boolean> {
  // A wildcard address is reached on loopback; an IPv6 literal goes in brackets.
  const target = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const authority = net.isIPv6(target) ? `[${target}]:${port}` : `${target}:${port}`;
  try {
    const response = await fetch(`http://${authority}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await response.json()) as { status?: unknown };
    return response.status === 200 && body.status === 'ok';
  } catch {
    return false;
  }
}

/** HOST and PORT: free to listen on, or taken by a running webcap. */
export function portCheck(config: Config): Check {
  const name = 'port';
  const { host, port } = config;
  const address = `${host}:${port}`;
  return {
    name,
    async run({ timeoutMs }) {
      if (port === 0) return ok(name, `PORT=0: \`webcap serve\` listens on any free port of ${host}`);
      const code = await listenError(host, port);
      if (code === null) return ok(name, `${address} is free`);
      if (code === 'EADDRINUSE') {
        if (await answersLikeWebcap(host, port, timeoutMs)) {
          return ok(name, `${address} is taken by a running webcap (GET /healthz answers)`);
        }
        return fail(
          name,
          `${address} is taken by another program`,
          `stop it (ss -ltnp 'sport = :${port}' names it) or set PORT to a free port`,
        );
      }
      if (code === 'EACCES') {
        return fail(
          name,
          `${address}: this user may not listen on port ${port} (EACCES)`,
          'set PORT to 1024 or above',
        );
      }
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
        return fail(
          name,
          `${address}: ${host} is not an address of this machine (${code})`,
          'set HOST to an address of this machine: 127.0.0.1 for this machine only, 0.0.0.0 for every interface',
        );
      }
      return fail(
        name,
        `${address}: cannot listen (${code})`,
        'set HOST and PORT to an address this user may listen on',
      );
    },
  };
}
