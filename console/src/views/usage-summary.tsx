import type { AccountUsage, Balance } from '../api/types.ts';
import { formatCount, formatDate } from '../app/format.ts';
import { UsageBar } from '../charts/bar-chart.tsx';

function balanceName(balance: Balance): string {
  if (balance.source === 'subscription') return 'Subscription';
  if (balance.source === 'credit') return 'Credits';
  return `Pack: ${balance.title === undefined || balance.title === '' ? 'untitled' : balance.title}`;
}

/** The account's remaining units, its balances in draw order and its rate limits. */
export function UsageSummary({ usage }: { readonly usage: AccountUsage }) {
  return (
    <>
      <div class="cards">
        <div class="card stat">
          <span class="stat-label">Remaining</span>
          <span class="stat-value" data-testid="remaining">
            {formatCount(usage.remaining)}
          </span>
          <span class="stat-note">units, all balances together</span>
        </div>
        <div class="card stat">
          <span class="stat-label">Used this period</span>
          <span class="stat-value" data-testid="total-used">
            {formatCount(usage.total_used)}
          </span>
          <span class="stat-note">
            {formatDate(usage.period.start)} to {formatDate(usage.period.end)}
          </span>
        </div>
        <div class="card stat">
          <span class="stat-label">Renews</span>
          <span class="stat-value">{formatDate(usage.renewal_date)}</span>
          <span class="stat-note">the subscription’s quota starts again</span>
        </div>
        <div class="card stat">
          <span class="stat-label">Rate limits</span>
          <span class="stat-value small">
            {usage.rate_limit.per_second === null ? 'no limit' : `${usage.rate_limit.per_second}/s`}
            {' · '}
            {usage.rate_limit.per_minute === null ? 'no limit' : `${usage.rate_limit.per_minute}/min`}
          </span>
          <span class="stat-note">billed calls per second and per minute</span>
        </div>
      </div>
      <div class="card">
        <h2 class="card-title">Balances, in draw order</h2>
        {usage.balances.length === 0 ? (
          <p class="muted">
            No balance: calls are refused with 402 until the operator adds a plan, a pack or credits.
          </p>
        ) : (
          <ol class="balances">
            {usage.balances.map((balance, index) => (
              <li key={'id' in balance ? balance.id : `${balance.source}-${index}`}>
                <div class="balance-head">
                  <span class="strong">{balanceName(balance)}</span>
                  <span class="muted">
                    {balance.total === 0
                      ? 'none'
                      : `${formatCount(balance.remaining)} left of ${formatCount(balance.total)}`}
                  </span>
                </div>
                {balance.total > 0 && (
                  <UsageBar
                    used={balance.used}
                    total={balance.total}
                    label={`${balanceName(balance)}: ${balance.used} of ${balance.total} used`}
                  />
                )}
              </li>
            ))}
          </ol>
        )}
      </div>
    </>
  );
}
