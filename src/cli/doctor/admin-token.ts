import type { Config } from '../../config.js';
import { type Check, ok, warn } from './check.js';

/** WEBCAP_ADMIN_TOKEN: whether the admin API is on, and a warning when METRICS_TOKEN would open it. */
export function adminTokenCheck(config: Config): Check {
  const name = 'admin token';
  const admin = config.adminToken;
  return {
    name,
    async run() {
      if (admin === null) {
        return ok(
          name,
          'WEBCAP_ADMIN_TOKEN unset: the admin API (/admin/v1) is off; `webcap admin` works without it',
        );
      }
      if (admin === config.metricsToken) {
        return warn(
          name,
          'WEBCAP_ADMIN_TOKEN equals METRICS_TOKEN: whatever scrapes /metrics can manage accounts and keys',
          'give METRICS_TOKEN a value of its own (openssl rand -hex 32)',
        );
      }
      return ok(name, 'WEBCAP_ADMIN_TOKEN set: the admin API (/admin/v1) is on');
    },
  };
}
