import type { Db } from '../store/db.js';
import { countAccounts, createAccount } from './accounts.js';
import { createKey } from './keys.js';

export interface BootstrapResult {
  readonly accountSlug: string;
  readonly keyId: string;
  /** The new key, to be shown once; null when the operator supplied it. */
  readonly plaintext: string | null;
}

/**
 * On an empty database, creates account `default` with a development key so that a fresh
 * install is usable at once. Does nothing (returns null) when any account exists.
 */
export async function bootstrapDefaultAccount(
  db: Db,
  options: { readonly monthlyQuota: number; readonly key: string | null },
  now: Date,
): Promise<BootstrapResult | null> {
  if ((await countAccounts(db)) > 0) return null;
  const account = await createAccount(
    db,
    { name: 'Default', slug: 'default', monthlyQuota: options.monthlyQuota, statsEnabled: true },
    now,
  );
  const { key, plaintext } = await createKey(
    db,
    {
      accountSlug: account.slug,
      alias: 'bootstrap',
      category: 'development',
      plaintext: options.key ?? undefined,
    },
    now,
  );
  return { accountSlug: account.slug, keyId: key.id, plaintext: options.key === null ? plaintext : null };
}
