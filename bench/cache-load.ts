import { createRequire } from 'node:module';
import autocannon from 'autocannon';

/*
 * Child-process entry (forked by cache-hits.ts): runs autocannon with the options the parent
 * sends and answers with its result, so that the load generator's CPU is not counted as the
 * service's, and the two do not share an event loop.
 *
 * autocannon 8 appends every response body to a JS string (`req.body += chunk`), which decodes
 * a binary PNG as UTF-8: measured at ~2.5 ms of the load generator's CPU per 146 KB response,
 * ten times the service's own cost, on the cores the two share. The bench never reads the
 * bodies (it sets no expectBody or verifyBody), so that method is replaced by a no-op; every
 * byte is still read from the socket and counted in the throughput.
 */
const require = createRequire(import.meta.url);
const PipelinedRequestsQueue = require('autocannon/lib/pipelinedRequestsQueue.js') as {
  prototype: { addBody(data: Buffer): void };
};
PipelinedRequestsQueue.prototype.addBody = () => undefined;

process.once('message', (options: autocannon.Options) => {
  autocannon(options).then(
    (result) => {
      process.send?.(result, () => process.exit(0));
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
