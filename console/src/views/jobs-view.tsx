import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../api/api-client.ts';
import type { JobSummary, Page } from '../api/types.ts';
import { formatSpan, formatTime } from '../app/format.ts';
import { Link, navigate } from '../app/router.tsx';
import { isOwner, useSession } from '../app/session-context.ts';
import { ViewHeader } from '../app/shell.tsx';
import { Badge } from '../components/badge.tsx';
import { FormError, SelectInput } from '../components/form-field.tsx';
import { Loaded } from '../components/load-state.tsx';
import { refocusIfLost } from '../components/refocus.ts';
import { useAction } from '../components/use-action.ts';
import { usePages } from '../components/use-pages.ts';
import { CrawlsTable, moving, useCrawlPages } from './crawls-table.tsx';
import { JobDialog } from './job-dialog.tsx';
import { jobTone } from './job-status.ts';
import { WebhookSecretCard } from './webhook-secret-card.tsx';

const STATUSES: ReadonlyArray<readonly [string, string]> = [
  ['', 'any status'],
  ['queued', 'queued'],
  ['running', 'running'],
  ['completed', 'completed'],
  ['failed', 'failed'],
];

/** How often the lists are read again while a job, crawl or batch shown has not ended. */
const POLL_MS = 2000;

/**
 * Jobs: recent async jobs with their timings and webhooks, cancel a queued one; the crawls and
 * batches with their progress, cancel a live one; the webhook secret for owners.
 */
export function JobsView({ openJob }: { readonly openJob: string | null }) {
  const session = useSession();
  const [status, setStatus] = useState('');
  const jobs = usePages<JobSummary>(
    (before) => api<Page<JobSummary>>('GET', `/jobs${query({ status, limit: 50, before })}`),
    [status],
  );
  const crawls = useCrawlPages();
  const cancel = useAction();
  const active =
    (jobs.state === 'ready' &&
      jobs.data.items.some((job) => job.status === 'queued' || job.status === 'running')) ||
    (crawls.state === 'ready' && crawls.data.items.some(moving));
  const reload = () => Promise.all([jobs.reload(), crawls.reload()]);

  // Jobs and crawls move on their own: read the lists again while one shown has not ended.
  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(() => void reload(), POLL_MS);
    return () => clearTimeout(timer);
  });

  return (
    <section>
      <ViewHeader
        title="Jobs"
        lead="Async calls (is_async=true) of the last day, newest first. A job is billed only when it completes."
      >
        <button type="button" class="button secondary" onClick={() => void reload()}>
          Refresh
        </button>
      </ViewHeader>
      <div class="filters compact">
        <SelectInput label="Status" value={status} onValue={setStatus} options={STATUSES} />
      </div>
      <FormError error={cancel.error} />
      <Loaded
        load={jobs}
        isEmpty={(page) => page.items.length === 0}
        empty={
          <p>
            No jobs {status === '' ? 'yet' : `that are ${status}`}. Run one from the{' '}
            <Link to="/playground">playground</Link> with <code>is_async</code> set to true.
          </p>
        }
      >
        {(page) => (
          <>
            <div class="table-wrap">
              <table class="table" data-testid="jobs">
                <caption class="visually-hidden">Async jobs, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Job</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                    <th scope="col">Waited</th>
                    <th scope="col">Ran</th>
                    <th scope="col">Webhook</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((job) => (
                    <tr key={job.job_id} data-job-id={job.job_id}>
                      <td>
                        <Link to={`/jobs/${encodeURIComponent(job.job_id)}`}>
                          <code>{job.job_id}</code>
                        </Link>
                        <span class="sub">
                          {job.endpoint}
                          {job.key === null ? '' : ` · ${job.key.alias || job.key.prefix}`}
                        </span>
                      </td>
                      <td data-label="Status">
                        <Badge tone={jobTone(job.status)}>{job.status}</Badge>
                        {job.error !== null && (
                          <span class="sub">
                            {job.error.status}: {job.error.error}
                          </span>
                        )}
                      </td>
                      <td class="nowrap" data-label="Created">
                        {formatTime(job.created_at)}
                      </td>
                      <td class="num" data-label="Waited">
                        {formatSpan(job.created_at, job.started_at)}
                      </td>
                      <td class="num" data-label="Ran">
                        {formatSpan(job.started_at, job.finished_at)}
                      </td>
                      <td data-label="Webhook">
                        {job.webhook === null
                          ? '—'
                          : `${job.webhook.state}, ${job.webhook.attempts.length} attempt${job.webhook.attempts.length === 1 ? '' : 's'}`}
                      </td>
                      <td>
                        <div class="row-actions">
                          <Link class="button secondary small" to={`/jobs/${encodeURIComponent(job.job_id)}`}>
                            View<span class="visually-hidden"> {job.job_id}</span>
                          </Link>
                          {job.status === 'queued' && (
                            <button
                              type="button"
                              class="button danger small"
                              disabled={cancel.busy}
                              onClick={async () => {
                                await cancel.run(() =>
                                  api('DELETE', `/jobs/${encodeURIComponent(job.job_id)}`),
                                );
                                await jobs.reload();
                                // The row stays (its job now failed, 409) but its Cancel went.
                                refocusIfLost(() =>
                                  document.querySelector<HTMLElement>(
                                    `tr[data-job-id="${CSS.escape(job.job_id)}"] .row-actions a`,
                                  ),
                                );
                              }}
                            >
                              Cancel<span class="visually-hidden"> {job.job_id}</span>
                            </button>
                          )}
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {page.next !== null && (
              <button
                type="button"
                class="button secondary"
                disabled={jobs.loadingMore}
                onClick={() => void jobs.more()}
              >
                Load older jobs
              </button>
            )}
          </>
        )}
      </Loaded>
      <CrawlsTable crawls={crawls} />
      {isOwner(session) ? (
        <WebhookSecretCard />
      ) : (
        <p class="muted">The webhook secret is shown to the account’s owners only.</p>
      )}
      {openJob !== null && <JobDialog jobId={openJob} onClose={() => navigate('/jobs')} />}
    </section>
  );
}
