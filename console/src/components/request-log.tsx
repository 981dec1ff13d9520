import { useState } from 'preact/hooks';
import { api, query } from '../api/api-client.ts';
import type { ConsoleKey, Page, RequestRow } from '../api/types.ts';
import { formatDuration, formatTime, localInputToIso } from '../app/format.ts';
import { Badge, statusTone } from './badge.tsx';
import { SelectInput, TextInput } from './form-field.tsx';
import { Loaded } from './load-state.tsx';
import { usePages } from './use-pages.ts';

const ENGINES: ReadonlyArray<readonly [string, string]> = [
  ['', 'any engine'],
  ['capture', 'capture'],
  ['content', 'content'],
  ['analyze', 'analyze'],
  ['extract', 'extract'],
  ['map', 'map'],
  ['crawl', 'crawl'],
  ['website-crawler', 'website-crawler'],
  ['usage', 'usage'],
  ['stats', 'stats'],
  ['jobs', 'jobs'],
];

const STATUSES: ReadonlyArray<readonly [string, string]> = [
  ['', 'any status'],
  ['2xx', '2xx (success)'],
  ['4xx', '4xx (refused)'],
  ['5xx', '5xx (failed)'],
  ...['200', '201', '202', '400', '401', '402', '403', '404', '409', '500', '503'].map(
    (code) => [code, code] as const,
  ),
];

interface Filters {
  readonly engine: string;
  readonly status: string;
  readonly key_id: string;
  readonly since: string;
  readonly until: string;
  readonly account: string;
}

const NO_FILTERS: Filters = { engine: '', status: '', key_id: '', since: '', until: '', account: '' };

/**
 * The request log with its filters (engine, status, key, time; and account across accounts), newest
 * first, a page at a time. `keys` offers the account's keys to filter by; without it the key is typed.
 */
export function RequestLog({
  scope,
  keys,
  refreshToken = 0,
}: {
  readonly scope: 'account' | 'operator';
  readonly keys?: readonly ConsoleKey[];
  /** Changing it reloads the log (after a call made elsewhere on the page). */
  readonly refreshToken?: number;
}) {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const path = scope === 'operator' ? '/operator/requests' : '/requests';
  const pages = usePages<RequestRow>(
    (before) =>
      api<Page<RequestRow>>(
        'GET',
        `${path}${query({
          engine: filters.engine,
          status: filters.status,
          key_id: filters.key_id,
          since: localInputToIso(filters.since),
          until: localInputToIso(filters.until),
          account: scope === 'operator' ? filters.account : '',
          limit: 50,
          before,
        })}`,
      ),
    [path, filters, refreshToken],
  );
  const set = (name: keyof Filters) => (value: string) => setDraft({ ...draft, [name]: value });

  return (
    <div class="request-log">
      <form
        class="filters"
        aria-label="Filter the request log"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
        }}
      >
        {scope === 'operator' && (
          <TextInput label="Account" placeholder="slug" value={draft.account} onValue={set('account')} />
        )}
        <SelectInput label="Engine" value={draft.engine} onValue={set('engine')} options={ENGINES} />
        <SelectInput label="Status" value={draft.status} onValue={set('status')} options={STATUSES} />
        {keys === undefined ? (
          <TextInput label="Key id" placeholder="key_…" value={draft.key_id} onValue={set('key_id')} />
        ) : (
          <SelectInput
            label="Key"
            value={draft.key_id}
            onValue={set('key_id')}
            options={[
              ['', 'any key'],
              ...keys.map((k) => [k.id, `${k.alias || 'no alias'} (${k.prefix}…)`] as const),
            ]}
          />
        )}
        <TextInput label="Since (UTC)" type="datetime-local" value={draft.since} onValue={set('since')} />
        <TextInput label="Until (UTC)" type="datetime-local" value={draft.until} onValue={set('until')} />
        <div class="filter-actions">
          <button type="submit" class="button primary small">
            Apply
          </button>
          <button
            type="button"
            class="button secondary small"
            onClick={() => {
              setDraft(NO_FILTERS);
              setFilters(NO_FILTERS);
            }}
          >
            Reset
          </button>
        </div>
      </form>
      <Loaded
        load={pages}
        isEmpty={(rows) => rows.items.length === 0}
        empty={<p>No requests match. Calls made with the account’s keys appear here within seconds.</p>}
      >
        {(rows) => (
          <>
            <div class="table-wrap">
              <table class="table" data-testid="request-log">
                <caption class="visually-hidden">Requests, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    {scope === 'operator' && <th scope="col">Account</th>}
                    <th scope="col">Endpoint</th>
                    <th scope="col">Status</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Billed</th>
                    <th scope="col">Key</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.items.map((row) => (
                    <tr key={row.id}>
                      <td class="nowrap">{formatTime(row.created_at)}</td>
                      {scope === 'operator' && <td data-label="Account">{row.account ?? '—'}</td>}
                      <td data-label="Endpoint">
                        <code>{row.path}</code>
                        <span class="sub">{row.engine}</span>
                        {row.target_url !== null && (
                          <span class="sub wraps" data-testid="request-target" title="Target URL">
                            {row.target_url}
                          </span>
                        )}
                      </td>
                      <td data-label="Status">
                        <Badge tone={statusTone(row.status)}>{row.status}</Badge>
                        {row.error !== null && (
                          <span class="sub wraps" data-testid="request-error">
                            {row.error}
                          </span>
                        )}
                      </td>
                      <td class="num" data-label="Duration">
                        {formatDuration(row.duration_ms)}
                      </td>
                      <td data-label="Billed">{row.billed ? 'yes' : 'no'}</td>
                      <td data-label="Key">
                        {row.key === null ? (
                          '—'
                        ) : (
                          <>
                            {row.key.alias || 'no alias'} <code class="sub-inline">{row.key.prefix}…</code>
                          </>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {rows.next !== null && (
              <button
                type="button"
                class="button secondary"
                disabled={pages.loadingMore}
                onClick={() => void pages.more()}
              >
                {pages.loadingMore ? 'Loading…' : 'Load older requests'}
              </button>
            )}
          </>
        )}
      </Loaded>
    </div>
  );
}
