import type { AuditEntry, Page } from '../api/types.ts';
import { formatTime } from '../app/format.ts';
import { Loaded } from './load-state.tsx';
import type { usePages } from './use-pages.ts';

function actor(entry: AuditEntry): string {
  switch (entry.actor.kind) {
    case 'user':
      return entry.actor.email ?? entry.actor.id ?? 'a user';
    case 'admin_token':
      return 'admin token';
    case 'admin_api':
      return 'admin API';
    case 'cli':
      return 'CLI';
  }
}

function detail(entry: AuditEntry): string {
  if (entry.detail === null || Object.keys(entry.detail).length === 0) return '';
  return Object.entries(entry.detail)
    .map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
}

/** Audit entries, newest first, with a button for older ones. */
export function AuditTable({
  pages,
  showAccount,
}: {
  readonly pages: ReturnType<typeof usePages<AuditEntry>>;
  readonly showAccount: boolean;
}) {
  return (
    <Loaded
      load={pages}
      isEmpty={(page: Page<AuditEntry>) => page.items.length === 0}
      empty={<p>Nothing has been recorded yet.</p>}
    >
      {(page) => (
        <>
          <div class="table-wrap">
            <table class="table" data-testid="audit-log">
              <caption class="visually-hidden">Audit log, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Action</th>
                  <th scope="col">Who</th>
                  {showAccount && <th scope="col">Account</th>}
                  <th scope="col">Target</th>
                  <th scope="col">From</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((entry) => (
                  <tr key={entry.id}>
                    <td class="nowrap">{formatTime(entry.at)}</td>
                    <td data-label="Action">
                      <code>{entry.action}</code>
                      {detail(entry) !== '' && <span class="sub">{detail(entry)}</span>}
                    </td>
                    <td data-label="Who">{actor(entry)}</td>
                    {showAccount && <td data-label="Account">{entry.account ?? '—'}</td>}
                    <td data-label="Target">{entry.target === null ? '—' : <code>{entry.target}</code>}</td>
                    <td data-label="From">{entry.ip ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {page.next !== null && (
            <button
              type="button"
              class="button secondary"
              disabled={pages.loadingMore}
              onClick={() => void pages.more()}
            >
              Load older entries
            </button>
          )}
        </>
      )}
    </Loaded>
  );
}
