/*
 * The bytes behind a hosted file link (a crawl page's `screenshot`): fetched without the API key,
 * since the signed link is the credential, within a time and a size bound.
 */

/** How long one file may take to arrive. */
const FILE_TIMEOUT_MS = 60_000;
/** The most bytes one file may have: far above a full-page PNG at the service's height bound. */
const FILE_MAX_BYTES = 256 * 1024 * 1024;

/** The file the link answers; throws, saying why, when it answers anything but 2xx or is past the bounds. */
export async function fetchHostedFile(link: string): Promise<Buffer> {
  const url = new URL(link);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('the link is not http(s)');
  const answer = await fetch(url, { signal: AbortSignal.timeout(FILE_TIMEOUT_MS), redirect: 'error' });
  if (!answer.ok || answer.body === null) {
    await answer.body?.cancel();
    throw new Error(`the link answered ${answer.status}`);
  }
  const reader = answer.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    size += value.byteLength;
    if (size > FILE_MAX_BYTES) {
      await reader.cancel();
      throw new Error(`the file is larger than ${FILE_MAX_BYTES} bytes`);
    }
    chunks.push(value);
  }
}
