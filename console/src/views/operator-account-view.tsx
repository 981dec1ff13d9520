import { useState } from 'preact/hooks';
import { api } from '../api/api-client.ts';
import type { Account, AccountDetail, ConsoleUser, DailyUsage } from '../api/types.ts';
import { formatCount, formatDate, formatTime } from '../app/format.ts';
import { Link } from '../app/router.tsx';
import { ViewHeader } from '../app/shell.tsx';
import { DailyCharts } from '../charts/daily-charts.tsx';
import { Badge, keyState } from '../components/badge.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { Dialog } from '../components/dialog.tsx';
import { Checkbox, FormError, SelectInput, TextInput } from '../components/form-field.tsx';
import { Loaded } from '../components/load-state.tsx';
import { useAction } from '../components/use-action.ts';
import { useLoad } from '../components/use-load.ts';
import { UsersTable } from '../components/users-table.tsx';
import { optionalCount } from './operator-accounts-view.tsx';
import { UsageSummary } from './usage-summary.tsx';

/** One account for the operator: its plan and caps, balances, packs and credits, keys, people and calls. */
export function OperatorAccountView({ slug }: { readonly slug: string }) {
  const path = `/operator/accounts/${encodeURIComponent(slug)}`;
  const detail = useLoad(() => api<AccountDetail>('GET', path), [path]);
  const daily = useLoad(
    () =>
      api<{ days: DailyUsage[] }>('GET', `/operator/usage/daily?days=30&account=${encodeURIComponent(slug)}`),
    [slug],
  );
  return (
    <section>
      <p class="breadcrumb">
        <Link to="/operator/accounts">Accounts</Link> / <code>{slug}</code>
      </p>
      <Loaded load={detail}>
        {(data) => (
          <>
            <ViewHeader
              title={data.account.name}
              lead={`Account ${data.account.slug}, created ${formatDate(data.account.created_at)}.`}
            >
              {data.account.active ? (
                <Badge tone="good">active</Badge>
              ) : (
                <Badge tone="neutral">inactive</Badge>
              )}
            </ViewHeader>
            <div class="grid-2 align-start">
              <AccountSettings account={data.account} path={path} onSaved={() => void detail.reload()} />
              <Balances path={path} onAdded={() => void detail.reload()} />
            </div>
            <UsageSummary usage={data.usage} />
            <h2>People</h2>
            <AccountPeople users={data.users} path={path} onChanged={() => void detail.reload()} />
            <h2>Keys</h2>
            {data.keys.length === 0 ? (
              <p class="muted">No keys.</p>
            ) : (
              <div class="table-wrap">
                <table class="table">
                  <caption class="visually-hidden">The account’s keys</caption>
                  <thead>
                    <tr>
                      <th scope="col">Key</th>
                      <th scope="col">State</th>
                      <th scope="col">Today</th>
                      <th scope="col">This month</th>
                      <th scope="col">Total</th>
                      <th scope="col">Last used</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.keys.map((key) => {
                      const state = keyState(key);
                      return (
                        <tr key={key.id}>
                          <td>
                            <span class="strong">{key.alias || 'no alias'}</span>
                            <span class="sub">
                              <code>{key.prefix}…</code> · {key.category} · <code>{key.id}</code>
                            </span>
                          </td>
                          <td data-label="State">
                            <Badge tone={state.tone}>{state.label}</Badge>
                          </td>
                          <td class="num" data-label="Today">
                            {formatCount(key.used.today)}
                          </td>
                          <td class="num" data-label="This month">
                            {formatCount(key.used.this_month)}
                          </td>
                          <td class="num" data-label="Total">
                            {formatCount(key.used.total)}
                          </td>
                          <td class="nowrap" data-label="Last used">
                            {formatTime(key.last_used_at)}
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
            {data.packs.length > 0 && (
              <>
                <h2>Packs</h2>
                <div class="table-wrap">
                  <table class="table compact">
                    <thead>
                      <tr>
                        <th scope="col">Pack</th>
                        <th scope="col">Bought</th>
                        <th scope="col">Used</th>
                        <th scope="col">Remaining</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.packs.map((pack) => (
                        <tr key={pack.id}>
                          <td>{pack.title || 'untitled'}</td>
                          <td data-label="Bought">{formatDate(pack.purchased_at)}</td>
                          <td class="num" data-label="Used">
                            {formatCount(pack.used)} / {formatCount(pack.total)}
                          </td>
                          <td class="num" data-label="Remaining">
                            {formatCount(pack.remaining)}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </>
            )}
            <h2>Calls per day</h2>
            <Loaded load={daily}>{(days) => <DailyCharts days={days.days} />}</Loaded>
          </>
        )}
      </Loaded>
    </section>
  );
}

function AccountSettings({
  account,
  path,
  onSaved,
}: {
  readonly account: Account;
  readonly path: string;
  readonly onSaved: () => void;
}) {
  const text = (value: number | null) => (value === null ? '' : String(value));
  const [name, setName] = useState(account.name);
  const [quota, setQuota] = useState(text(account.monthly_quota));
  const [perSecond, setPerSecond] = useState(text(account.per_second));
  const [perMinute, setPerMinute] = useState(text(account.per_minute));
  const [anchor, setAnchor] = useState(account.billing_anchor.slice(0, 10));
  const [stats, setStats] = useState(account.stats_enabled);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const toggle = useAction();

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
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
    const done = await action.run(() =>
      api<Account>('PATCH', path, { name, stats_enabled: stats, billing_anchor: anchor, ...numbers }),
    );
    if (done !== undefined) {
      setSaved(true);
      onSaved();
    }
  };

  return (
    <div class="card stack">
      <form class="stack" onSubmit={save} aria-labelledby="plan-title">
        <h2 class="card-title" id="plan-title">
          Plan and caps
        </h2>
        <TextInput label="Name" required value={name} onValue={setName} />
        <TextInput
          label="Monthly quota"
          hint="Blank: none."
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
        <TextInput
          label="Billing anchor"
          hint="The day the monthly periods start from."
          type="date"
          value={anchor}
          onValue={setAnchor}
        />
        <Checkbox label="Stats feature" checked={stats} onChecked={setStats} />
        <FormError error={action.error} />
        {saved && (
          <p class="notice" role="status">
            Saved.
          </p>
        )}
        <div class="form-actions">
          <button type="submit" class="button primary" disabled={action.busy}>
            Save plan
          </button>
        </div>
      </form>
      <div class="divider" />
      <p class="muted">
        {account.active
          ? 'Deactivating refuses every call of the account’s keys (403) and ends its queued jobs.'
          : 'The account is deactivated: its keys are refused with 403.'}
      </p>
      <FormError error={toggle.error} />
      <div>
        <button
          type="button"
          class={account.active ? 'button danger' : 'button secondary'}
          disabled={toggle.busy}
          onClick={async () => {
            const done = await toggle.run(() => api<Account>('PATCH', path, { active: !account.active }));
            if (done !== undefined) onSaved();
          }}
        >
          {account.active ? 'Deactivate account' : 'Reactivate account'}
        </button>
      </div>
    </div>
  );
}

function Balances({ path, onAdded }: { readonly path: string; readonly onAdded: () => void }) {
  const [packTotal, setPackTotal] = useState('');
  const [packTitle, setPackTitle] = useState('');
  const [credits, setCredits] = useState('');
  const [note, setNote] = useState('');
  const pack = useAction();
  const grant = useAction();
  const [said, setSaid] = useState<string | null>(null);
  return (
    <div class="card stack">
      <form
        class="stack"
        aria-labelledby="pack-title"
        onSubmit={async (event) => {
          event.preventDefault();
          setSaid(null);
          const done = await pack.run(() =>
            api('POST', `${path}/packs`, { total: Number(packTotal), title: packTitle }),
          );
          if (done !== undefined) {
            setSaid(`Pack of ${packTotal} added.`);
            setPackTotal('');
            setPackTitle('');
            onAdded();
          }
        }}
      >
        <h2 class="card-title" id="pack-title">
          Add a pack
        </h2>
        <div class="grid-2">
          <TextInput label="Units" inputMode="numeric" required value={packTotal} onValue={setPackTotal} />
          <TextInput label="Title" value={packTitle} onValue={setPackTitle} />
        </div>
        <FormError error={pack.error} />
        <div class="form-actions">
          <button type="submit" class="button secondary" disabled={pack.busy}>
            Add pack
          </button>
        </div>
      </form>
      <div class="divider" />
      <form
        class="stack"
        aria-labelledby="credits-title"
        onSubmit={async (event) => {
          event.preventDefault();
          setSaid(null);
          const done = await grant.run(() =>
            api('POST', `${path}/credits`, { amount: Number(credits), note }),
          );
          if (done !== undefined) {
            setSaid(`${credits} credits granted.`);
            setCredits('');
            setNote('');
            onAdded();
          }
        }}
      >
        <h2 class="card-title" id="credits-title">
          Grant credits
        </h2>
        <div class="grid-2">
          <TextInput label="Credits" inputMode="numeric" required value={credits} onValue={setCredits} />
          <TextInput label="Note" value={note} onValue={setNote} />
        </div>
        <FormError error={grant.error} />
        <div class="form-actions">
          <button type="submit" class="button secondary" disabled={grant.busy}>
            Grant credits
          </button>
        </div>
      </form>
      {said !== null && (
        <p class="notice" role="status">
          {said}
        </p>
      )}
    </div>
  );
}

type PeopleDialog = { kind: 'add' } | { kind: 'password'; user: ConsoleUser; password: string | null } | null;

function AccountPeople({
  users,
  path,
  onChanged,
}: {
  readonly users: readonly ConsoleUser[];
  readonly path: string;
  readonly onChanged: () => void;
}) {
  const [open, setOpen] = useState<PeopleDialog>(null);
  const rowAction = useAction();
  const patch = async (user: ConsoleUser, body: { role?: string; active?: boolean }) => {
    const done = await rowAction.run(() =>
      api('PATCH', `/operator/users/${encodeURIComponent(user.id)}`, body),
    );
    if (done !== undefined) onChanged();
  };
  return (
    <>
      <div class="row-actions spaced">
        <button type="button" class="button primary" onClick={() => setOpen({ kind: 'add' })}>
          Add a console user
        </button>
      </div>
      <FormError error={rowAction.error} />
      {users.length === 0 ? (
        <p class="muted">Nobody signs in to this account yet.</p>
      ) : (
        <UsersTable
          users={users}
          actions={(user) => (
            <>
              <button
                type="button"
                class="button secondary small"
                disabled={rowAction.busy}
                onClick={() => void patch(user, { role: user.role === 'owner' ? 'member' : 'owner' })}
              >
                Make {user.role === 'owner' ? 'member' : 'owner'}
                <span class="visually-hidden"> {user.email}</span>
              </button>
              <button
                type="button"
                class="button secondary small"
                disabled={rowAction.busy}
                onClick={() => void patch(user, { active: !user.active })}
              >
                {user.active ? 'Deactivate' : 'Activate'}
                <span class="visually-hidden"> {user.email}</span>
              </button>
              <button
                type="button"
                class="button secondary small"
                onClick={() => setOpen({ kind: 'password', user, password: null })}
              >
                Reset password<span class="visually-hidden"> of {user.email}</span>
              </button>
            </>
          )}
        />
      )}
      {open?.kind === 'add' && (
        <AddUserDialog
          path={path}
          onClose={(added) => {
            setOpen(null);
            if (added) onChanged();
          }}
        />
      )}
      {open?.kind === 'password' && <ResetPasswordDialog user={open.user} onClose={() => setOpen(null)} />}
    </>
  );
}

function AddUserDialog({
  path,
  onClose,
}: {
  readonly path: string;
  readonly onClose: (added: boolean) => void;
}) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState('owner');
  const [password, setPassword] = useState('');
  const [generated, setGenerated] = useState<string | null>(null);
  const action = useAction();
  if (generated !== null) {
    return (
      <Dialog title="Console user added" onClose={() => onClose(true)}>
        <p>
          The password made for <strong>{email}</strong>, shown this once:
        </p>
        <div class="secret-box">
          <label for="generated-password" class="visually-hidden">
            Generated password
          </label>
          <input id="generated-password" class="secret" readOnly value={generated} />
          <CopyButton text={generated} label="Copy password" />
        </div>
        <div class="form-actions">
          <button type="button" class="button primary" onClick={() => onClose(true)} data-autofocus>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <Dialog title="Add a console user" onClose={() => onClose(false)}>
      <form
        class="stack"
        onSubmit={async (event) => {
          event.preventDefault();
          const body = { email, name, role, ...(password === '' ? {} : { password }) };
          const made = await action.run(() =>
            api<ConsoleUser & { password?: string }>('POST', `${path}/users`, body),
          );
          if (made === undefined) return;
          if (made.password !== undefined) setGenerated(made.password);
          else onClose(true);
        }}
      >
        <TextInput label="Email" type="email" required value={email} onValue={setEmail} data-autofocus />
        <TextInput label="Name" required value={name} onValue={setName} />
        <SelectInput
          label="Role"
          value={role}
          onValue={setRole}
          options={[
            ['owner', 'owner'],
            ['member', 'member'],
          ]}
        />
        <TextInput
          label="Password"
          hint="10 to 200 characters; blank makes one, shown once."
          type="password"
          autoComplete="new-password"
          value={password}
          onValue={setPassword}
        />
        <FormError error={action.error} />
        <div class="form-actions">
          <button type="button" class="button secondary" onClick={() => onClose(false)}>
            Cancel
          </button>
          <button type="submit" class="button primary" disabled={action.busy}>
            Add user
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function ResetPasswordDialog({
  user,
  onClose,
}: {
  readonly user: ConsoleUser;
  readonly onClose: () => void;
}) {
  const [password, setPassword] = useState('');
  const [generated, setGenerated] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const action = useAction();
  return (
    <Dialog title={`Reset the password of ${user.email}`} onClose={onClose}>
      {done ? (
        <div class="stack">
          {generated === null ? (
            <p>The password is set. Their sessions have ended.</p>
          ) : (
            <>
              <p>The new password, shown this once. Their sessions have ended.</p>
              <div class="secret-box">
                <label for="reset-password" class="visually-hidden">
                  New password
                </label>
                <input id="reset-password" class="secret" readOnly value={generated} />
                <CopyButton text={generated} label="Copy password" />
              </div>
            </>
          )}
          <div class="form-actions">
            <button type="button" class="button primary" onClick={onClose} data-autofocus>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form
          class="stack"
          onSubmit={async (event) => {
            event.preventDefault();
            // A set password may come back as an empty answer: success is any answer at all.
            const answer = await action.run(
              async () =>
                (await api<{ password?: string } | undefined>(
                  'POST',
                  `/operator/users/${encodeURIComponent(user.id)}/password`,
                  password === '' ? {} : { password },
                )) ?? {},
            );
            if (answer !== undefined) {
              setGenerated(answer.password ?? null);
              setDone(true);
            }
          }}
        >
          <TextInput
            label="New password"
            hint="Blank makes one, shown once."
            type="password"
            autoComplete="new-password"
            value={password}
            onValue={setPassword}
            data-autofocus
          />
          <FormError error={action.error} />
          <div class="form-actions">
            <button type="button" class="button secondary" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" class="button primary" disabled={action.busy}>
              Reset password
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
