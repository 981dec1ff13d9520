import type { Clock } from '../clock.js';
import type { Sealer } from '../jobs/sealed.js';
import type { Db } from '../store/db.js';
import type { Actor } from './audit.js';

/** What an admin operation needs, whichever door it came through (admin API, CLI, console). */
export interface AdminDeps {
  readonly db: Db;
  readonly clock: Clock;
  /** How long the jobs ended by a withdrawn key or a deactivated account are kept (JOB_RETENTION_SECONDS). */
  readonly jobRetentionMs: number;
  /** Seals keys' signing secrets (billing/signing-secrets.ts keySecretSealer). */
  readonly keySecrets: Sealer;
  /** Who acts: every change is written to the audit log in their name. */
  readonly actor: Actor;
}
