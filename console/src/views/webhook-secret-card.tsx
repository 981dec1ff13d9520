import { useState } from 'preact/hooks';
import { api } from '../api/api-client.ts';
import { CopyButton } from '../components/copy-button.tsx';
import { Dialog } from '../components/dialog.tsx';
import { FormError } from '../components/form-field.tsx';
import { useAction } from '../components/use-action.ts';

/** The account's webhook signing secret, for owners: shown on demand (and logged), rotated after a confirmation. */
export function WebhookSecretCard() {
  const [secret, setSecret] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const action = useAction();

  const show = async () => {
    const answer = await action.run(() => api<{ secret: string }>('GET', '/webhook-secret'));
    if (answer !== undefined) setSecret(answer.secret);
  };
  const rotate = async () => {
    const answer = await action.run(() => api<{ secret: string }>('POST', '/webhook-secret/rotate'));
    if (answer !== undefined) {
      setSecret(answer.secret);
      setConfirming(false);
    }
  };

  return (
    <div class="card">
      <h2 class="card-title">Webhook secret</h2>
      <p class="muted">
        Deliveries carry <code>Webcap-Signature</code>, an HMAC of the body under this secret. Verify it with{' '}
        <code>verifyWebhook</code> from <code>@webcap/sdk</code>.
      </p>
      {secret !== null && (
        <div class="secret-box">
          <label for="webhook-secret" class="visually-hidden">
            Webhook secret
          </label>
          <input id="webhook-secret" class="secret" readOnly value={secret} />
          <CopyButton text={secret} label="Copy secret" />
        </div>
      )}
      {!confirming && <FormError error={action.error} />}
      <div class="row-actions">
        {secret === null ? (
          <button type="button" class="button secondary" disabled={action.busy} onClick={() => void show()}>
            Show secret
          </button>
        ) : (
          <button type="button" class="button secondary" onClick={() => setSecret(null)}>
            Hide secret
          </button>
        )}
        <button type="button" class="button danger" onClick={() => setConfirming(true)}>
          Rotate secret
        </button>
      </div>
      {confirming && (
        <Dialog title="Rotate the webhook secret?" onClose={() => setConfirming(false)}>
          <p>
            Deliveries are signed with the new secret from now on; receivers that check the old one will
            refuse them.
          </p>
          <FormError error={action.error} />
          <div class="form-actions">
            <button
              type="button"
              class="button secondary"
              onClick={() => setConfirming(false)}
              data-autofocus
            >
              Cancel
            </button>
            <button type="button" class="button danger" disabled={action.busy} onClick={() => void rotate()}>
              Rotate
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}
