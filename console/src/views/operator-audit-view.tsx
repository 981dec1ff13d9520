import { useState } from 'preact/hooks';
import { api, query } from '../api/api-client.ts';
import type { AuditEntry, Page } from '../api/types.ts';
import { ViewHeader } from '../app/shell.tsx';
import { AuditTable } from '../components/audit-log.tsx';
import { TextInput } from '../components/form-field.tsx';
import { usePages } from '../components/use-pages.ts';

/** The audit log across accounts, filtered by account and action. */
export function OperatorAuditView() {
  const [draft, setDraft] = useState({ account: '', action: '' });
  const [filters, setFilters] = useState(draft);
  const pages = usePages<AuditEntry>(
    (before) => api<Page<AuditEntry>>('GET', `/operator/audit${query({ ...filters, limit: 50, before })}`),
    [filters],
  );
  return (
    <section>
      <ViewHeader
        title="Audit log"
        lead="Every console action and every admin API and CLI operation, across accounts."
      />
      <form
        class="filters"
        aria-label="Filter the audit log"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
        }}
      >
        <TextInput
          label="Account"
          placeholder="slug"
          value={draft.account}
          onValue={(account) => setDraft({ ...draft, account })}
        />
        <TextInput
          label="Action"
          placeholder="key.create"
          value={draft.action}
          onValue={(action) => setDraft({ ...draft, action })}
        />
        <div class="filter-actions">
          <button type="submit" class="button primary small">
            Apply
          </button>
        </div>
      </form>
      <AuditTable pages={pages} showAccount />
    </section>
  );
}
