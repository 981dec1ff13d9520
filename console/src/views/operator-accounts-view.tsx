import { useState } from 'preact/hooks';
import { api } from '../api/api-client.ts';
import type { Account, AccountListItem, Page } from '../api/types.ts';
import { formatCount } from '../app/format.ts';
import { Link, navigate } from '../app/router.tsx';
import { ViewHeader } from '../app/shell.tsx';
import { Badge } from '../components/badge.tsx';
import { Dialog } from '../components/dialog.tsx';
import { Checkbox, FormError, TextInput } from '../components/form-field.tsx';
import { Loaded } from '../components/load-state.tsx';
import { useAction } from '../components/use-action.ts';
import { useLoad } from '../components/use-load.ts';

/** A whole number from a form's text, '' as null (no limit); NaN when it is not one. */
export function optionalCount(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const value = Number(trimmed);
  return Number.isInteger(value) && value >= 0 ? value : Number.NaN;
}

/** Accounts: every account with its plan, balance, keys, people and today's calls; create one. */
export function OperatorAccountsView() {
  const accounts = useLoad(() => api<Page<AccountListItem>>('GET', '/operator/accounts?limit=200'), []);
  const [creating, setCreating] = useState(false);
  return (
    <section>
      <ViewHeader title="Accounts" lead="Every account on this service.">
        <button type="button" class="button primary" onClick={() => setCreating(true)}>
          Create account
        </button>
      </ViewHeader>
      <Loaded
        load={accounts}
        isEmpty={(page) => page.items.length === 0}
        empty={<p>No accounts yet. Create the first one.</p>}
      >
        {(page) => (
          <div class="table-wrap">
            <table class="table" data-testid="accounts">
              <caption class="visually-hidden">Accounts</caption>
              <thead>
                <tr>
                  <th scope="col">Account</th>
                  <th scope="col">State</th>
                  <th scope="col">Monthly quota</th>
                  <th scope="col">Remaining</th>
                  <th scope="col">Keys</th>
                  <th scope="col">People</th>
                  <th scope="col">Calls today</th>
                </tr>
              </thead>
              <tbody>
                {page.items.map((account) => (
                  <tr key={account.slug} data-account={account.slug}>
                    <td>
                      <Link to={`/operator/accounts/${encodeURIComponent(account.slug)}`} class="strong">
                        {account.name}
                      </Link>
                      <span class="sub">
                        <code>{account.slug}</code>
                        {account.stats_enabled ? ' · stats' : ''}
                      </span>
                    </td>
                    <td data-label="State">
                      {account.active ? (
                        <Badge tone="good">active</Badge>
                      ) : (
                        <Badge tone="neutral">inactive</Badge>
                      )}
                    </td>
                    <td class="num" data-label="Monthly quota">
                      {formatCount(account.monthly_quota)}
                    </td>
                    <td class="num" data-label="Remaining">
                      {formatCount(account.remaining)}
                    </td>
                    <td class="num" data-label="Keys">
                      {account.keys}
                    </td>
                    <td class="num" data-label="People">
                      {account.users}
                    </td>
                    <td class="num" data-label="Calls today">
                      {formatCount(account.calls_today)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
      {creating && <CreateAccountDialog onClose={() => setCreating(false)} />}
    </section>
  );
}

function CreateAccountDialog({ onClose }: { readonly onClose: () => void }) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [quota, setQuota] = useState('');
  const [perSecond, setPerSecond] = useState('');
  const [perMinute, setPerMinute] = useState('');
  const [stats, setStats] = useState(false);
  const action = useAction();
  return (
    <Dialog title="Create an account" onClose={onClose}>
      <form
        class="stack"
        onSubmit={async (event) => {
          event.preventDefault();
          const numbers = {
            monthly_quota: optionalCount(quota),
            per_second: optionalCount(perSecond),
            per_minute: optionalCount(perMinute),
          };
          const wrong = Object.entries(numbers).find(([, value]) => Number.isNaN(value));
          if (wrong !== undefined) {
            await action.run(() =>
              Promise.reject(new Error(`${wrong[0]} must be a whole number, or blank for none.`)),
            );
            return;
          }
          const made = await action.run(() =>
            api<Account>('POST', '/operator/accounts', { name, slug, stats_enabled: stats, ...numbers }),
          );
          if (made !== undefined) navigate(`/operator/accounts/${encodeURIComponent(made.slug)}`);
        }}
      >
        <TextInput label="Name" required maxLength={200} value={name} onValue={setName} data-autofocus />
        <TextInput
          label="Slug"
          hint="Lower-case letters, digits and dashes; it names the account everywhere."
          required
          value={slug}
          onValue={setSlug}
        />
        <TextInput
          label="Monthly quota"
          hint="Units per billing month; blank for none (packs and credits only)."
          inputMode="numeric"
          value={quota}
          onValue={setQuota}
        />
        <div class="grid-2">
          <TextInput
            label="Calls per second"
            hint="Blank: no cap."
            inputMode="numeric"
            value={perSecond}
            onValue={setPerSecond}
          />
          <TextInput
            label="Calls per minute"
            hint="Blank: no cap."
            inputMode="numeric"
            value={perMinute}
            onValue={setPerMinute}
          />
        </div>
        <Checkbox
          label="Stats feature (GET /v1/stats and the Health view)"
          checked={stats}
          onChecked={setStats}
        />
        <FormError error={action.error} />
        <div class="form-actions">
          <button type="button" class="button secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="button primary" disabled={action.busy}>
            Create account
          </button>
        </div>
      </form>
    </Dialog>
  );
}
