import { useEffect } from 'preact/hooks';
import { api } from '../api/api-client.ts';
import type { JobRecord, WebhookAttempt } from '../api/types.ts';
import { formatSpan, formatTime } from '../app/format.ts';
import { Badge } from '../components/badge.tsx';
import { Dialog } from '../components/dialog.tsx';
import { JsonView } from '../components/json-view.tsx';
import { Loaded } from '../components/load-state.tsx';
import { useLoad } from '../components/use-load.ts';
import { jobTone } from './job-status.ts';

/** How often a job that has not ended is read again. */
const POLL_MS = 1500;

/** How a capture's file is shown: an image, a video with its controls, or a link to the PDF. */
type ResultKind = 'image' | 'video' | 'pdf';

const VIDEO_FORMATS = new Set(['mp4', 'webm']);

/** The file a capture job's result shows (its hosted link, or its base64) and how to show it. */
function resultFile(result: unknown): { src: string; kind: ResultKind } | null {
  if (typeof result !== 'object' || result === null) return null;
  const {
    screenshot_url: url,
    format,
    base64,
  } = result as { screenshot_url?: unknown; format?: unknown; base64?: unknown };
  const kind: ResultKind = format === 'pdf' ? 'pdf' : VIDEO_FORMATS.has(String(format)) ? 'video' : 'image';
  if (typeof base64 === 'string' && typeof format === 'string' && kind !== 'pdf') {
    return { src: `data:${kind}/${format === 'jpg' ? 'jpeg' : format};base64,${base64}`, kind };
  }
  if (typeof url === 'string') return { src: url, kind };
  return null;
}

export function WebhookAttempts({ attempts }: { readonly attempts: readonly WebhookAttempt[] }) {
  if (attempts.length === 0) return <p class="muted">No attempt yet.</p>;
  return (
    <div class="table-wrap">
      <table class="table compact">
        <thead>
          <tr>
            <th scope="col">At</th>
            <th scope="col">Answer</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((attempt) => (
            <tr key={attempt.at}>
              <td class="nowrap">{formatTime(attempt.at)}</td>
              <td data-label="Answer">{attempt.status ?? 'none'}</td>
              <td data-label="Error">{attempt.error ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One job's record: timings, error, webhook attempts, and its result (the image shown, the JSON viewable). */
export function JobDialog({ jobId, onClose }: { readonly jobId: string; readonly onClose: () => void }) {
  const job = useLoad(() => api<JobRecord>('GET', `/jobs/${encodeURIComponent(jobId)}`), [jobId]);
  const ongoing = job.state === 'ready' && (job.data.status === 'queued' || job.data.status === 'running');
  // A job that has not ended is read again until it has, so the dialog shows it complete.
  useEffect(() => {
    if (!ongoing) return;
    const timer = setTimeout(() => void job.reload(), POLL_MS);
    return () => clearTimeout(timer);
  });
  return (
    <Dialog title={`Job ${jobId}`} onClose={onClose} wide>
      <Loaded load={job}>
        {(record) => {
          const file = record.status === 'completed' ? resultFile(record.result) : null;
          return (
            <div class="stack">
              <dl class="facts">
                <div>
                  <dt>Status</dt>
                  <dd>
                    <Badge tone={jobTone(record.status)}>{record.status}</Badge>
                  </dd>
                </div>
                <div>
                  <dt>Endpoint</dt>
                  <dd>
                    <code>{record.endpoint}</code>
                  </dd>
                </div>
                <div>
                  <dt>Created</dt>
                  <dd>{formatTime(record.created_at)}</dd>
                </div>
                <div>
                  <dt>Waited</dt>
                  <dd>{formatSpan(record.created_at, record.started_at)}</dd>
                </div>
                <div>
                  <dt>Ran</dt>
                  <dd>{formatSpan(record.started_at, record.finished_at)}</dd>
                </div>
              </dl>
              {record.error !== null && (
                <p class="form-error">
                  {record.error.status}: {record.error.error}
                </p>
              )}
              {file?.kind === 'pdf' && (
                <p>
                  <a href={file.src} target="_blank" rel="noreferrer">
                    Open the PDF
                  </a>
                </p>
              )}
              {file?.kind === 'video' && (
                <video class="result-image" src={file.src} controls loop muted>
                  <a href={file.src}>The recording made by job {record.job_id}</a>
                </video>
              )}
              {file?.kind === 'image' && (
                <img class="result-image" src={file.src} alt={`The capture made by job ${record.job_id}`} />
              )}
              {record.webhook !== undefined && record.webhook !== null && (
                <>
                  <h3>Webhook: {record.webhook.state}</h3>
                  <WebhookAttempts attempts={record.webhook.attempts} />
                </>
              )}
              <JsonView value={record} label="The job record" />
            </div>
          );
        }}
      </Loaded>
    </Dialog>
  );
}
