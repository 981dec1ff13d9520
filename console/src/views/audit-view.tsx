import { api, query } from '../api/api-client.ts';
import type { AuditEntry, Page } from '../api/types.ts';
import { ViewHeader } from '../app/shell.tsx';
import { AuditTable } from '../components/audit-log.tsx';
import { usePages } from '../components/use-pages.ts';

/** The account's audit log, for owners: who did what in the console, the admin API and the CLI. */
export function AuditView() {
  const pages = usePages<AuditEntry>(
    (before) => api<Page<AuditEntry>>('GET', `/audit${query({ limit: 50, before })}`),
    [],
  );
  return (
    <section>
      <ViewHeader
        title="Audit log"
        lead="Every sign-in, key, user and secret change on this account, whoever made it."
      />
      <AuditTable pages={pages} showAccount={false} />
    </section>
  );
}
