import { randomBytes } from 'node:crypto';
import type { Db } from '../store/db.js';

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The account's webhook signing secret, generated on first use (two processes asking at once get the same one). */
export async function webhookSecret(db: Db, accountId: string): Promise<string> {
  await db
    .updateTable('accounts')
    .set({ webhook_secret: newSecret() })
    .where('id', '=', accountId)
    .where('webhook_secret', 'is', null)
    .execute();
  const row = await db
    .selectFrom('accounts')
    .select('webhook_secret')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  if (row.webhook_secret === null) throw new Error('webhook secret missing after it was set');
  return row.webhook_secret;
}

/** Replaces the account's webhook secret; deliveries signed from now on use the new one. */
export async function rotateWebhookSecret(db: Db, accountId: string): Promise<string> {
  const secret = newSecret();
  await db.updateTable('accounts').set({ webhook_secret: secret }).where('id', '=', accountId).execute();
  return secret;
}
