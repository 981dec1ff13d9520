import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildAssets, siteHandler } from './fixture-pages.js';

/*
 * Child-process entry (forked by fixture-site.ts): serves the fixture site on every loopback host
 * named in argv, all on one port, so that serving the pages never competes with the service's
 * event loop in the benchmark process. Reports `{ port }` to the parent once listening.
 */

function listen(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

async function main(): Promise<void> {
  const hosts = process.argv.slice(2);
  const assets = await buildAssets();
  // The article's images come from the next host in the list, as from a CDN.
  const cdnOf = (hostHeader: string) => {
    const [host, port] = hostHeader.split(':');
    const next = hosts[(hosts.indexOf(host ?? '') + 1) % hosts.length];
    return `http://${next}:${port}`;
  };
  const handler = siteHandler(assets, cdnOf);
  const servers = hosts.map(() => http.createServer({ keepAliveTimeout: 5000 }, handler));
  const [first, ...rest] = servers;
  if (first === undefined) throw new Error('no hosts given');
  const port = await listen(first, hosts[0] ?? '', 0);
  await Promise.all(rest.map((server, i) => listen(server, hosts[i + 1] ?? '', port)));
  process.send?.({ port });
  process.on('disconnect', () => process.exit(0));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
