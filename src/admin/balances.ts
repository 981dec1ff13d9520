import * as accounts from '../billing/accounts.js';
import type { CreditGrant, Ledger, Pack } from '../billing/balances.js';
import * as balances from '../billing/balances.js';
import { audit } from './audit.js';
import type { AdminDeps } from './deps.js';

/** A pack with the slug of the account it belongs to. */
export interface AccountPack {
  readonly pack: Pack;
  readonly accountSlug: string;
}

export interface NewPack {
  readonly accountSlug: string;
  readonly total: number;
  readonly title?: string;
  /** ISO 8601; orders the draw (oldest first). Default: now. */
  readonly purchasedAt?: string;
}

/** Adds a one-time pack, drawn after the subscription quota. */
export async function addPack(deps: AdminDeps, input: NewPack): Promise<AccountPack> {
  const pack = await balances.addPack(deps.db, input, deps.clock());
  const account = await accounts.getAccountBySlug(deps.db, input.accountSlug);
  await audit(deps, {
    action: 'pack.add',
    accountId: account.id,
    target: pack.id,
    detail: { total: pack.total, title: pack.title, purchased_at: pack.purchasedAt },
  });
  return { pack, accountSlug: input.accountSlug };
}

/** The account's packs in draw order; not_found when there is no such account. */
export async function listPacks(deps: AdminDeps, accountSlug: string): Promise<AccountPack[]> {
  const account = await accounts.getAccountBySlug(deps.db, accountSlug);
  const packs = await balances.listPacks(deps.db, account.id);
  return packs.map((pack) => ({ pack, accountSlug: account.slug }));
}

/** Grants credits, drawn after the subscription and the packs. */
export async function grantCredits(
  deps: AdminDeps,
  input: { readonly accountSlug: string; readonly amount: number; readonly note?: string },
): Promise<CreditGrant> {
  const grant = await balances.grantCredits(deps.db, input, deps.clock());
  const account = await accounts.getAccountBySlug(deps.db, grant.accountSlug);
  await audit(deps, {
    action: 'credits.grant',
    accountId: account.id,
    target: grant.id,
    detail: { amount: grant.amount, note: grant.note },
  });
  return grant;
}

/** The account's billed units per source and its latest `limit` reservations, newest first. */
export function showLedger(deps: AdminDeps, accountSlug: string, limit: number): Promise<Ledger> {
  return balances.listLedger(deps.db, accountSlug, limit);
}
