import { randomBytes } from 'node:crypto';
import { WebcapError } from '../errors.js';
import { Sealer } from '../jobs/sealed.js';
import type { Db } from '../store/db.js';
import { type FoundKey, foundKeyOf, getKey, type KeyRecord, keyRowWithAccount } from './keys.js';

/*
 * Each key's signing secret for signed links (docs/signed-links.md). Verifying a link recomputes
 * its HMAC, so the secret is kept sealed (AES-256-GCM under the service's secret), not hashed, and
 * shown only in the answer that makes it.
 */

/** The sealer of keys' signing secrets: the service's secret, under a purpose of its own. */
export function keySecretSealer(serviceSecret: string): Sealer {
  return new Sealer(serviceSecret, 'key signing secrets');
}

/** A new signing secret: `wcs_` and 32 random bytes, base64url. */
export function generateSigningSecret(): string {
  return `wcs_${randomBytes(32).toString('base64url')}`;
}

/** A new signing secret and its sealed form, for a key being made. */
export function newSigningSecret(sealer: Sealer): { readonly secret: string; readonly sealed: string } {
  const secret = generateSigningSecret();
  return { secret, sealed: sealer.seal(secret) };
}

/**
 * Replaces the key's signing secret with a new one, returned here once: links signed with the
 * old one stop verifying at once. One UPDATE, so concurrent rotations end with the secret of the
 * last one written, and each answer's secret was stored when it was given.
 */
export async function rotateSigningSecret(
  db: Db,
  sealer: Sealer,
  id: string,
  now: Date,
): Promise<{ readonly record: KeyRecord; readonly signingSecret: string }> {
  const { key } = await getKey(db, id);
  if (key.revokedAt !== null) throw new WebcapError('conflict', `key ${id} is revoked`);
  const { secret, sealed } = newSigningSecret(sealer);
  await db
    .updateTable('api_keys')
    .set({ signing_secret: sealed, updated_at: now.toISOString() })
    .where('id', '=', id)
    .execute();
  return { record: await getKey(db, id), signingSecret: secret };
}

/** A key named by a signed link, with its sealed signing secret (null when it has none). */
export interface SigningKey {
  readonly found: FoundKey;
  readonly sealedSecret: string | null;
}

/**
 * The key with this id and its sealed secret, read afresh on every link, so that a rotation or a
 * revocation takes effect on the next request in every process.
 */
export async function findSigningKey(db: Db, id: string): Promise<SigningKey | undefined> {
  const row = await keyRowWithAccount(db, 'id', id);
  return row === undefined ? undefined : { found: foundKeyOf(row), sealedSecret: row.signing_secret };
}
