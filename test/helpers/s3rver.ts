import fs from 'node:fs';
import S3rver from 's3rver';
import { tempDir } from './databases.js';

/** The only credentials s3rver knows; it checks the key id of SigV4 requests, not the signature. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export interface TestS3 {
  /** `http://127.0.0.1:<port>`; buckets are addressed path-style. */
  readonly endpoint: string;
  close(): Promise<void>;
}

/** A real S3-protocol server (s3rver) on 127.0.0.1, a random port and a temp dir, with these buckets. */
export async function startS3rver(buckets: readonly string[]): Promise<TestS3> {
  const directory = tempDir('webcap-s3rver-');
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    // Host names are never bucket names here: tests reach it by IP or by names of their own.
    vhostBuckets: false,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
