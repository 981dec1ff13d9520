import { api } from '../api/api-client.ts';
import type { SystemHealth } from '../api/types.ts';
import { formatBytes, formatCount, formatUptime } from '../app/format.ts';
import { ViewHeader } from '../app/shell.tsx';
import { EngineHealth } from '../components/engine-health.tsx';
import { Loaded } from '../components/load-state.tsx';
import { useLoad } from '../components/use-load.ts';

function Stat({
  label,
  value,
  note,
}: {
  readonly label: string;
  readonly value: string;
  readonly note?: string;
}) {
  return (
    <div class="card stat">
      <span class="stat-label">{label}</span>
      <span class="stat-value">{value}</span>
      {note !== undefined && <span class="stat-note">{note}</span>}
    </div>
  );
}

const count = (value: unknown) => (typeof value === 'number' ? formatCount(value) : '—');

/** System health: this process's render pool, extractors, job queue and memory, and each engine's hour. */
export function OperatorHealthView() {
  const health = useLoad(() => api<SystemHealth>('GET', '/operator/health'), []);
  return (
    <section>
      <ViewHeader title="System health" lead="This process’s numbers, from the same sources as /metrics.">
        <button type="button" class="button secondary" onClick={() => void health.reload()}>
          Refresh
        </button>
      </ViewHeader>
      <Loaded load={health}>
        {(data) => (
          <>
            <h2>Render pool</h2>
            <div class="cards">
              <Stat
                label="Busy"
                value={`${count(data.render_pool.busy)} / ${count(data.render_pool.size)}`}
                note="renders running / slots"
              />
              <Stat label="Queued" value={count(data.render_pool.queued)} note="calls waiting for a render" />
              <Stat
                label="Rejected"
                value={count(data.render_pool.rejected_total)}
                note="turned away since start (503)"
              />
              <Stat
                label="Browser"
                value={data.render_pool.browser}
                note={`${count(data.render_pool.browser_restarts_total)} restarts, ${count(data.render_pool.crashes_total)} crashes since start`}
              />
            </div>
            <h2>Extractors and jobs</h2>
            <div class="cards">
              <Stat
                label="Extractors busy"
                value={`${count(data.extractors.busy)} / ${count(data.extractors.threads)}`}
              />
              <Stat label="Extractions queued" value={count(data.extractors.queued)} />
              <Stat label="Jobs queued" value={count(data.jobs.queued)} note="across every process" />
            </div>
            <h2>Process</h2>
            <div class="cards">
              <Stat label="Uptime" value={formatUptime(data.process.uptime_seconds)} />
              <Stat label="Memory" value={formatBytes(data.process.rss_bytes)} note="resident" />
              <Stat label="Heap" value={formatBytes(data.process.heap_used_bytes)} note="used" />
            </div>
            <h2>Engines, last hour</h2>
            <EngineHealth engines={data.engines} />
          </>
        )}
      </Loaded>
    </section>
  );
}
