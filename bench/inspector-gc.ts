import { WebSocket } from 'undici';

/** How long the inspector may take to answer; a full collection of a few hundred MB takes well under it. */
const ANSWER_MS = 60_000;

/**
 * A full garbage collection in a Node process started with `--inspect=127.0.0.1:<port>`, through
 * the inspector's HeapProfiler.collectGarbage. An idle sample taken after it measures what the
 * process retains, not how long ago V8 last chose to collect.
 */
export async function collectGarbage(port: number): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/json/list`);
  const targets = (await response.json()) as { webSocketDebuggerUrl?: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`the inspector at port ${port} lists no target`);
  const socket = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the inspector did not answer')), ANSWER_MS);
      socket.addEventListener('open', () => {
        socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
      });
      socket.addEventListener('message', (event) => {
        const message = JSON.parse(String(event.data)) as { id?: number; error?: { message: string } };
        if (message.id !== 1) return;
        clearTimeout(timer);
        if (message.error === undefined) resolve();
        else reject(new Error(`HeapProfiler.collectGarbage: ${message.error.message}`));
      });
      socket.addEventListener('error', () => {
        clearTimeout(timer);
        reject(new Error(`the inspector's socket at port ${port} failed`));
      });
    });
  } finally {
    socket.close();
  }
}
