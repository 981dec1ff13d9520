import { useState } from 'preact/hooks';
import { api } from '../api/api-client.ts';
import type { ConsoleKey, CreatedKey, Page, RotatedKey } from '../api/types.ts';
import { formatCount, formatDate, formatTime } from '../app/format.ts';
import { isOwner, useSession } from '../app/session-context.ts';
import { ViewHeader } from '../app/shell.tsx';
import { Badge, keyState } from '../components/badge.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { Dialog } from '../components/dialog.tsx';
import { FormError } from '../components/form-field.tsx';
import { Loaded } from '../components/load-state.tsx';
import { useAction } from '../components/use-action.ts';
import { useLoad } from '../components/use-load.ts';
import { type KeyFields, KeyForm } from './key-form.tsx';

type Open =
  | { readonly kind: 'create' }
  | { readonly kind: 'created'; readonly key: CreatedKey }
  | { readonly kind: 'edit'; readonly key: ConsoleKey }
  | { readonly kind: 'revoke'; readonly key: ConsoleKey }
  | { readonly kind: 'rotate'; readonly key: ConsoleKey }
  | { readonly kind: 'rotated'; readonly key: RotatedKey }
  | null;

/** Usage of one quota window: `3 / 100`, or `3` without a limit. */
function used(count: number, limit: number | null | undefined): string {
  return limit === null || limit === undefined
    ? formatCount(count)
    : `${formatCount(count)} / ${formatCount(limit)}`;
}

/** API keys: what each has used, and for owners create, change, deactivate and revoke. */
export function KeysView() {
  const session = useSession();
  const owner = isOwner(session);
  const keys = useLoad(() => api<Page<ConsoleKey>>('GET', '/keys'), []);
  const [open, setOpen] = useState<Open>(null);
  const action = useAction();
  const rowAction = useAction();

  const close = () => {
    setOpen(null);
    action.clearError();
    void keys.reload();
  };

  const create = async (fields: KeyFields) => {
    const created = await action.run(() => api<CreatedKey>('POST', '/keys', fields));
    if (created !== undefined) setOpen({ kind: 'created', key: created });
  };
  const edit = async (key: ConsoleKey, fields: KeyFields) => {
    const saved = await action.run(() =>
      api<ConsoleKey>('PATCH', `/keys/${encodeURIComponent(key.id)}`, fields),
    );
    if (saved !== undefined) close();
  };
  const setActive = async (key: ConsoleKey, active: boolean) => {
    await rowAction.run(() => api<ConsoleKey>('PATCH', `/keys/${encodeURIComponent(key.id)}`, { active }));
    void keys.reload();
  };
  const rotate = async (key: ConsoleKey) => {
    const rotated = await action.run(() =>
      api<RotatedKey>('POST', `/keys/${encodeURIComponent(key.id)}/signing-secret`),
    );
    if (rotated !== undefined) setOpen({ kind: 'rotated', key: rotated });
  };
  const revoke = async (key: ConsoleKey) => {
    const revoked = await action.run(() =>
      api<ConsoleKey>('POST', `/keys/${encodeURIComponent(key.id)}/revoke`),
    );
    if (revoked !== undefined) close();
  };

  return (
    <section>
      <ViewHeader
        title="API keys"
        lead={
          owner
            ? 'Keys call the API for this account. A new key is shown once: keep it somewhere safe.'
            : 'Keys call the API for this account. Only the account’s owners can create or change them.'
        }
      >
        {owner && (
          <button type="button" class="button primary" onClick={() => setOpen({ kind: 'create' })}>
            Create key
          </button>
        )}
      </ViewHeader>
      <FormError error={rowAction.error} />
      <Loaded
        load={keys}
        isEmpty={(page) => page.items.length === 0}
        empty={<p>{owner ? 'No keys yet. Create one to call the API.' : 'This account has no keys yet.'}</p>}
      >
        {(page) => (
          <div class="table-wrap">
            <table class="table">
              <caption class="visually-hidden">The account’s API keys</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">State</th>
                  <th scope="col">Today</th>
                  <th scope="col">Week</th>
                  <th scope="col">Month</th>
                  <th scope="col">Total</th>
                  <th scope="col">Last used</th>
                  {owner && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {page.items.map((key) => {
                  const state = keyState(key);
                  const live = key.revoked_at === null;
                  return (
                    <tr key={key.id} data-key-id={key.id}>
                      <td>
                        <span class="strong">{key.alias === '' ? 'no alias' : key.alias}</span>
                        <span class="sub">
                          <code>{key.prefix}…</code> · {key.category}
                        </span>
                      </td>
                      <td data-label="State">
                        <Badge tone={state.tone}>{state.label}</Badge>
                        {key.expires_at !== null && (
                          <span class="sub nowrap">expires {formatDate(key.expires_at)}</span>
                        )}
                      </td>
                      <td class="num" data-label="Today">
                        {used(key.used.today, key.quotas.daily)}
                      </td>
                      <td class="num" data-label="Week">
                        {used(key.used.this_week, key.quotas.weekly)}
                      </td>
                      <td class="num" data-label="Month">
                        {used(key.used.this_month, key.quotas.monthly)}
                      </td>
                      <td class="num" data-label="Total">
                        {used(key.used.total, key.quotas.total)}
                      </td>
                      <td class="nowrap" data-label="Last used">
                        {formatTime(key.last_used_at)}
                      </td>
                      {owner && (
                        <td>
                          {live && (
                            <div class="row-actions">
                              <button
                                type="button"
                                class="button secondary small"
                                onClick={() => setOpen({ kind: 'edit', key })}
                              >
                                Edit<span class="visually-hidden"> {key.alias || key.prefix}</span>
                              </button>
                              <button
                                type="button"
                                class="button secondary small"
                                disabled={rowAction.busy}
                                onClick={() => void setActive(key, !key.active)}
                              >
                                {key.active ? 'Deactivate' : 'Activate'}
                                <span class="visually-hidden"> {key.alias || key.prefix}</span>
                              </button>
                              <button
                                type="button"
                                class="button secondary small"
                                onClick={() => setOpen({ kind: 'rotate', key })}
                              >
                                {/* Short on screen, so that the row's actions fit the table's width. */}
                                Rotate<span class="visually-hidden"> signing</span> secret
                                <span class="visually-hidden"> {key.alias || key.prefix}</span>
                              </button>
                              <button
                                type="button"
                                class="button danger small"
                                onClick={() => setOpen({ kind: 'revoke', key })}
                              >
                                Revoke<span class="visually-hidden"> {key.alias || key.prefix}</span>
                              </button>
                            </div>
                          )}
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>

      {open?.kind === 'create' && (
        <Dialog title="Create a key" onClose={close}>
          <KeyForm
            initial={null}
            submitLabel="Create key"
            busy={action.busy}
            error={action.error}
            onSubmit={create}
            onCancel={close}
          />
        </Dialog>
      )}
      {open?.kind === 'created' && <NewKeyDialog created={open.key} onDone={close} />}
      {open?.kind === 'edit' && (
        <Dialog title={`Edit ${open.key.alias || open.key.prefix}`} onClose={close}>
          <KeyForm
            initial={open.key}
            submitLabel="Save"
            busy={action.busy}
            error={action.error}
            onSubmit={(fields) => void edit(open.key, fields)}
            onCancel={close}
          />
        </Dialog>
      )}
      {open?.kind === 'rotate' && (
        <Dialog title={`Rotate the signing secret of ${open.key.alias || open.key.prefix}?`} onClose={close}>
          <p>Signed links made with the current secret stop working at once. The key itself keeps working.</p>
          <FormError error={action.error} />
          <div class="form-actions">
            <button type="button" class="button secondary" onClick={close} data-autofocus>
              Cancel
            </button>
            <button
              type="button"
              class="button danger"
              disabled={action.busy}
              onClick={() => void rotate(open.key)}
            >
              Rotate signing secret
            </button>
          </div>
        </Dialog>
      )}
      {open?.kind === 'rotated' && (
        <Dialog title="The new signing secret" onClose={close}>
          <p>Copy it now. It is not shown again.</p>
          <SigningSecretBox secret={open.key.signing_secret} keyId={open.key.id} />
          <div class="form-actions">
            <button type="button" class="button primary" onClick={close} data-autofocus>
              I have copied it
            </button>
          </div>
        </Dialog>
      )}
      {open?.kind === 'revoke' && (
        <Dialog title={`Revoke ${open.key.alias || open.key.prefix}?`} onClose={close}>
          <p>
            The key stops working at once, its queued jobs end unrun, and this cannot be undone. To stop it
            for a while, deactivate it instead.
          </p>
          <FormError error={action.error} />
          <div class="form-actions">
            <button type="button" class="button secondary" onClick={close} data-autofocus>
              Cancel
            </button>
            <button
              type="button"
              class="button danger"
              disabled={action.busy}
              onClick={() => void revoke(open.key)}
            >
              Revoke key
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}

/** A key's signing secret, shown once, with what signs links with it. */
function SigningSecretBox({ secret, keyId }: { readonly secret: string; readonly keyId: string }) {
  return (
    <>
      <div class="secret-box">
        <label for="signing-secret">Signing secret, for signed links</label>
        <input
          id="signing-secret"
          class="secret"
          readOnly
          value={secret}
          onFocus={(event) => event.currentTarget.select()}
        />
        <CopyButton text={secret} label="Copy signing secret" />
      </div>
      <p class="hint">
        Sign links a web page can embed without the key on your server, with key id <code>{keyId}</code>:{' '}
        <code>webcap sign URL --key-id {keyId} --signing-secret-file FILE</code> or the SDK's{' '}
        <code>signUrl</code> (docs/signed-links.md).
      </p>
    </>
  );
}

/** The one time a key is shown: gone from the page once the dialog closes. */
function NewKeyDialog({ created, onDone }: { readonly created: CreatedKey; readonly onDone: () => void }) {
  return (
    <Dialog title="Your new key" onClose={onDone}>
      <p>
        Copy <strong>{created.alias === '' ? 'the key' : created.alias}</strong> and its signing secret now.
        They are not shown again: the service keeps only the key's hash.
      </p>
      <div class="secret-box">
        <label for="new-key" class="visually-hidden">
          The new API key
        </label>
        <input
          id="new-key"
          class="secret"
          readOnly
          value={created.key}
          onFocus={(event) => event.currentTarget.select()}
        />
        <CopyButton text={created.key} label="Copy key" />
      </div>
      <p class="hint">
        Use it as <code>x-api-key</code>, or export it for the CLI and the SDK:{' '}
        <code>export WEBCAP_API_KEY=…</code>
      </p>
      <SigningSecretBox secret={created.signing_secret} keyId={created.id} />
      <div class="form-actions">
        <button type="button" class="button primary" onClick={onDone} data-autofocus>
          I have copied it
        </button>
      </div>
    </Dialog>
  );
}
