import type { Account, AccountPatch, NewAccount } from '../billing/accounts.js';
import * as accounts from '../billing/accounts.js';
import { cancelWithdrawnJobs } from '../jobs/authority.js';
import * as secrets from '../jobs/webhook-secret.js';
import { audit, given } from './audit.js';
import type { AdminDeps } from './deps.js';

/** An account's webhook signing secret (docs/jobs.md), handed by the operator to the account's owner. */
export interface WebhookSecret {
  readonly accountSlug: string;
  readonly secret: string;
}

/** Creates an account; a slug that is taken, even by a create racing this one, is a conflict. */
export async function createAccount(deps: AdminDeps, input: NewAccount): Promise<Account> {
  const account = await accounts.createAccount(deps.db, input, deps.clock());
  await audit(deps, {
    action: 'account.create',
    accountId: account.id,
    target: account.slug,
    detail: given({ ...input }),
  });
  return account;
}

/** Every account, oldest first. */
export function listAccounts(deps: AdminDeps): Promise<Account[]> {
  return accounts.listAccounts(deps.db);
}

/** The account with this slug; not_found otherwise. */
export function showAccount(deps: AdminDeps, slug: string): Promise<Account> {
  return accounts.getAccountBySlug(deps.db, slug);
}

/**
 * Applies the fields present in the patch (null clears a limit). An account left inactive has its
 * queued jobs ended at once, unbilled (jobs/authority.ts).
 */
export async function updateAccount(deps: AdminDeps, slug: string, patch: AccountPatch): Promise<Account> {
  const now = deps.clock();
  const account = await accounts.updateAccount(deps.db, slug, patch, now);
  if (!account.active) {
    await cancelWithdrawnJobs(
      deps.db,
      { accountId: account.id },
      'account_inactive',
      now,
      deps.jobRetentionMs,
    );
  }
  await audit(deps, {
    action: 'account.update',
    accountId: account.id,
    target: account.slug,
    detail: given({ ...patch }),
  });
  return account;
}

/** The account's webhook signing secret, generated on first use; its showing is audited. */
export async function showWebhookSecret(deps: AdminDeps, slug: string): Promise<WebhookSecret> {
  const account = await accounts.getAccountBySlug(deps.db, slug);
  const secret = await secrets.webhookSecret(deps.db, account.id);
  await audit(deps, { action: 'webhook_secret.show', accountId: account.id, target: account.slug });
  return { accountSlug: account.slug, secret };
}

/** Replaces the account's webhook secret; deliveries signed from now on use the new one. */
export async function rotateWebhookSecret(deps: AdminDeps, slug: string): Promise<WebhookSecret> {
  const account = await accounts.getAccountBySlug(deps.db, slug);
  const secret = await secrets.rotateWebhookSecret(deps.db, account.id);
  await audit(deps, { action: 'webhook_secret.rotate', accountId: account.id, target: account.slug });
  return { accountSlug: account.slug, secret };
}
