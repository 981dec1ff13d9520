import type { Sealer } from '../jobs/sealed.js';
import type { BatchItem } from '../requests/batch.js';
import type { BlobStore } from '../store/blobs.js';
import type { BatchItemJson, CrawlPageJson } from './crawl-record.js';
import type { PageRow } from './crawl-store.js';
import type { PageResult } from './page-run.js';

/**
 * A finished page as the crawl's record and its crawl.page event show it: its row, and its result
 * as kept, its image's file id signed into a link by `link`.
 */
export async function pageJson(
  blobs: BlobStore,
  row: PageRow,
  link: (fileId: string) => string,
): Promise<CrawlPageJson> {
  const status = row.state === 'completed' || row.state === 'failed' ? row.state : 'skipped';
  const base: CrawlPageJson = {
    url: row.url,
    ...(row.final_url === null ? {} : { final_url: row.final_url }),
    status,
    status_code: row.status_code,
    depth: row.depth,
    ...(row.error === null ? {} : { error: row.error }),
  };
  if (row.result_key === null) return base;
  const stored = await blobs.get(row.result_key);
  if (stored === null) return { ...base, error: 'the result is gone' };
  const { screenshot, ...result } = JSON.parse(Buffer.from(stored.bytes).toString('utf8')) as PageResult;
  return { ...base, ...result, ...(screenshot === undefined ? {} : { screenshot: link(screenshot) }) };
}

/** A finished batch item as the batch's record and its batch.item event show it. */
export async function itemJson(sealer: Sealer, blobs: BlobStore, row: PageRow): Promise<BatchItemJson> {
  const { url } = row.options === null ? { url: '' } : sealer.open<BatchItem>(row.options);
  const base: BatchItemJson = {
    index: row.seq,
    url,
    status: row.state === 'completed' ? 'completed' : 'failed',
    status_code: row.status_code ?? 500,
    ...(row.error === null ? {} : { error: row.error }),
  };
  if (row.result_key === null) return base;
  const stored = await blobs.get(row.result_key);
  if (stored === null) return { ...base, error: 'the result is gone' };
  return { ...base, result: JSON.parse(Buffer.from(stored.bytes).toString('utf8')) as unknown };
}
