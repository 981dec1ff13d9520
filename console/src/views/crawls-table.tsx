import { api, query } from '../api/api-client.ts';
import type { CrawlListItem, Page } from '../api/types.ts';
import { formatCount, formatTime } from '../app/format.ts';
import { Badge } from '../components/badge.tsx';
import { FormError } from '../components/form-field.tsx';
import { Loaded } from '../components/load-state.tsx';
import { refocusIfLost } from '../components/refocus.ts';
import { useAction } from '../components/use-action.ts';
import { usePages } from '../components/use-pages.ts';
import { crawlTone } from './job-status.ts';

function idOf(item: CrawlListItem): string {
  return item.kind === 'crawl' ? item.crawl_id : item.batch_id;
}

/** Whether it may still change: live, or cancelled or stopped with pages still finishing (and being billed). */
export function moving(item: CrawlListItem): boolean {
  return item.status === 'queued' || item.status === 'running' || item.counts.running > 0;
}

/** Its progress: pages or items ended (completed, failed, skipped) of those it has, and what the rest did. */
function progress(item: CrawlListItem): { done: number; of: number; noun: string; notes: string[] } {
  const { counts } = item;
  const notes = [
    counts.failed > 0 ? `${formatCount(counts.failed)} failed` : '',
    item.kind === 'crawl' && item.counts.skipped > 0 ? `${formatCount(item.counts.skipped)} skipped` : '',
    counts.running > 0 ? `${formatCount(counts.running)} running` : '',
  ].filter((note) => note !== '');
  if (item.kind === 'crawl') {
    const { completed, failed, skipped, discovered } = item.counts;
    return { done: completed + failed + skipped, of: discovered, noun: 'pages', notes };
  }
  const { completed, failed, total } = item.counts;
  return { done: completed + failed, of: total, noun: 'items', notes };
}

export type CrawlPages = ReturnType<typeof usePages<CrawlListItem>>;

/** The account's crawls and batches, a page at a time (GET /console/api/crawls). */
export function useCrawlPages(): CrawlPages {
  return usePages<CrawlListItem>(
    (before) => api<Page<CrawlListItem>>('GET', `/crawls${query({ limit: 50, before })}`),
    [],
  );
}

/**
 * The account's whole-site crawls and batches (POST /v1/crawl, POST /v1/batch) with their
 * progress, newest first; a live one can be cancelled (the pages running finish and are billed).
 */
export function CrawlsTable({ crawls }: { readonly crawls: CrawlPages }) {
  const cancel = useAction();
  return (
    <>
      <h2 id="crawls-title" tabIndex={-1}>
        Crawls and batches
      </h2>
      <p class="muted">
        Whole-site crawls and batches, newest first, with their pages or items so far. Each page or item is
        billed when it completes.
      </p>
      <FormError error={cancel.error} />
      <Loaded
        load={crawls}
        isEmpty={(page) => page.items.length === 0}
        empty={
          <p>
            No crawls or batches yet. Start one with <code>POST /v1/crawl</code> or{' '}
            <code>POST /v1/batch</code>.
          </p>
        }
      >
        {(page) => (
          <>
            <div class="table-wrap">
              <table class="table" data-testid="crawls">
                <caption class="visually-hidden">Crawls and batches, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Crawl</th>
                    <th scope="col">Status</th>
                    <th scope="col">Progress</th>
                    <th scope="col">Credits</th>
                    <th scope="col">Created</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((item) => {
                    const id = idOf(item);
                    const { done, of, noun, notes } = progress(item);
                    return (
                      <tr key={id} data-crawl-id={id}>
                        <td>
                          <code>{id}</code>
                          <span class="sub wraps" data-testid="target">
                            {item.kind === 'crawl'
                              ? `crawl of ${item.url}`
                              : `batch of ${formatCount(item.counts.total)} URLs · ${item.engine}`}
                          </span>
                        </td>
                        <td data-label="Status">
                          <Badge tone={crawlTone(item.status)}>{item.status}</Badge>
                          {item.stop_reason !== null && <span class="sub">{item.stop_reason}</span>}
                        </td>
                        <td data-label="Progress">
                          <progress
                            class="progress"
                            value={done}
                            max={Math.max(of, 1)}
                            aria-label={`${id}: ${done} of ${of} ${noun} done`}
                          />
                          <span class="progress-count">
                            {formatCount(done)} of {formatCount(of)} {noun}
                          </span>
                          {notes.length > 0 && <span class="sub">{notes.join(' · ')}</span>}
                        </td>
                        <td class="num" data-label="Credits">
                          {formatCount(item.counts.credits_used)}
                        </td>
                        <td class="nowrap" data-label="Created">
                          {formatTime(item.created_at)}
                          {item.finished_at !== null && (
                            <span class="sub">ended {formatTime(item.finished_at)}</span>
                          )}
                        </td>
                        <td>
                          {(item.status === 'queued' || item.status === 'running') && (
                            <div class="row-actions">
                              <button
                                type="button"
                                class="button danger small"
                                disabled={cancel.busy}
                                onClick={async () => {
                                  await cancel.run(() => api('DELETE', `/crawls/${encodeURIComponent(id)}`));
                                  await crawls.reload();
                                  // The row stays (now cancelled) but its Cancel went: back to the list's heading.
                                  refocusIfLost(() => document.getElementById('crawls-title'));
                                }}
                              >
                                Cancel<span class="visually-hidden"> {id}</span>
                              </button>
                            </div>
                          )}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            {page.next !== null && (
              <button
                type="button"
                class="button secondary"
                disabled={crawls.loadingMore}
                onClick={() => void crawls.more()}
              >
                Load older crawls
              </button>
            )}
          </>
        )}
      </Loaded>
    </>
  );
}
