import type { KeyPatch, KeyRecord, NewKey } from '../billing/keys.js';
import * as keys from '../billing/keys.js';
import * as signingSecrets from '../billing/signing-secrets.js';
import { newSigningSecret } from '../billing/signing-secrets.js';
import { cancelWithdrawnJobs } from '../jobs/authority.js';
import { audit, given } from './audit.js';
import type { AdminDeps } from './deps.js';

/** A new key's record, the key itself and its signing secret, which no later answer shows again. */
export interface CreatedKey extends KeyRecord {
  readonly plaintext: string;
  readonly signingSecret: string;
}

/**
 * Creates a random key for an account, with a signing secret of its own (the operator-chosen
 * bootstrap key is billing/bootstrap.ts's, and gets a signing secret when one is rotated in).
 */
export async function createKey(
  deps: AdminDeps,
  input: Omit<NewKey, 'plaintext' | 'sealedSigningSecret'>,
): Promise<CreatedKey> {
  const signing = newSigningSecret(deps.keySecrets);
  const { key, plaintext } = await keys.createKey(
    deps.db,
    { ...input, sealedSigningSecret: signing.sealed },
    deps.clock(),
  );
  await audit(deps, {
    action: 'key.create',
    accountId: key.accountId,
    target: key.id,
    detail: { alias: key.alias, category: key.category, prefix: key.prefix, signed_only: key.signedOnly },
  });
  return { key, accountSlug: input.accountSlug, plaintext, signingSecret: signing.secret };
}

/** A key's record with its new signing secret, which no later answer shows again. */
export interface RotatedSigningSecret extends KeyRecord {
  readonly signingSecret: string;
}

/** Gives the key a new signing secret: links signed with the old one stop verifying at once. */
export async function rotateSigningSecret(deps: AdminDeps, id: string): Promise<RotatedSigningSecret> {
  const { record, signingSecret } = await signingSecrets.rotateSigningSecret(
    deps.db,
    deps.keySecrets,
    id,
    deps.clock(),
  );
  await audit(deps, { action: 'key.rotate_signing_secret', accountId: record.key.accountId, target: id });
  return { ...record, signingSecret };
}

/** Every key, or those of one account (not_found when it does not exist), oldest first. */
export function listKeys(
  deps: AdminDeps,
  filter: { readonly accountSlug?: string } = {},
): Promise<KeyRecord[]> {
  return keys.listKeys(deps.db, filter.accountSlug);
}

/** The key with this id; not_found otherwise. */
export function showKey(deps: AdminDeps, id: string): Promise<KeyRecord> {
  return keys.getKey(deps.db, id);
}

/** Ends the key's queued jobs at once, unbilled: a key withdrawn because it leaked must not keep spending. */
async function withdraw(deps: AdminDeps, record: KeyRecord, now: Date): Promise<void> {
  await cancelWithdrawnJobs(deps.db, { keyId: record.key.id }, 'inactive', now, deps.jobRetentionMs);
}

/**
 * Applies the fields present in the patch (null clears a quota or the expiry); a revoked key
 * cannot be made active again (conflict). A key left inactive has its queued jobs ended.
 */
export async function updateKey(deps: AdminDeps, id: string, patch: KeyPatch): Promise<KeyRecord> {
  const now = deps.clock();
  const record = await keys.updateKey(deps.db, id, patch, now);
  if (!record.key.active) await withdraw(deps, record, now);
  await audit(deps, {
    action: 'key.update',
    accountId: record.key.accountId,
    target: id,
    detail: given({ ...patch }),
  });
  return record;
}

/** Deactivates the key for good and ends its queued jobs. */
export async function revokeKey(deps: AdminDeps, id: string): Promise<KeyRecord> {
  const now = deps.clock();
  const record = await keys.revokeKey(deps.db, id, now);
  await withdraw(deps, record, now);
  await audit(deps, { action: 'key.revoke', accountId: record.key.accountId, target: id });
  return record;
}
