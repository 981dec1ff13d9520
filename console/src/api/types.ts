/*
 * The console API's shapes (docs/console.md, "Console API"), named as the front end reads them.
 * Each is the answer a route declares, taken from the types generated from the server's schemas
 * (console-api.ts, `npm run console:types`): a schema that changes changes them, and a name here
 * that no longer fits fails the console's type check (test/console-types.test.ts runs it).
 */
import type { paths } from './console-api.ts';

/** The JSON body of a route's success answer (200 or 201). */
type Answer<P extends keyof paths, M extends 'get' | 'post' | 'patch'> = paths[P][M] extends {
  readonly responses: { readonly [status in 200 | 201]?: { content: { 'application/json': infer T } } };
}
  ? T
  : never;

/** One item of a route's paged answer. */
type Item<P extends keyof paths> =
  Answer<P, 'get'> extends { readonly items: readonly (infer T)[] } ? T : never;

export interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | null;
}

export type Session = Answer<'/console/api/session', 'get'>;
export type Role = Session['user']['role'];

export type ConsoleKey = Item<'/console/api/keys'>;
export type CreatedKey = Answer<'/console/api/keys', 'post'>;
export type RotatedKey = Answer<'/console/api/keys/{id}/signing-secret', 'post'>;
export type KeyQuotas = Required<ConsoleKey['quotas']>;

export type AccountUsage = Answer<'/console/api/usage', 'get'>;
export type Balance = AccountUsage['balances'][number];
export type DailyUsage = Answer<'/console/api/usage/daily', 'get'>['days'][number];

/** A request-log row; the operator's log across accounts adds the account's slug. */
export type RequestRow = Item<'/console/api/requests'> &
  Partial<Pick<Item<'/console/api/operator/requests'>, 'account'>>;

export type JobSummary = Item<'/console/api/jobs'>;
export type JobRecord = Answer<'/console/api/jobs/{id}', 'get'>;
export type JobStatus = JobSummary['status'];
export type WebhookAttempt = NonNullable<JobSummary['webhook']>['attempts'][number];

/** A whole-site crawl or a batch (its `kind`), with its counts so far. */
export type CrawlListItem = Item<'/console/api/crawls'>;
export type CrawlStatus = CrawlListItem['status'];

type EngineStats = Answer<'/console/api/stats', 'get'>['engines'];
export type StatsSnapshot = EngineStats[keyof EngineStats];

export type ConsoleUser = Item<'/console/api/users'>;
export type Invite = Answer<'/console/api/invites', 'post'>;
export type PendingInvite = Item<'/console/api/invites'>;
export type InviteInfo = Answer<'/console/api/invites/{token}', 'get'>;

export type AuditEntry = Item<'/console/api/audit'>;

export type AccountDetail = Answer<'/console/api/operator/accounts/{slug}', 'get'>;
export type Account = AccountDetail['account'];
export type AccountListItem = Item<'/console/api/operator/accounts'>;
export type SystemHealth = Answer<'/console/api/operator/health', 'get'>;
