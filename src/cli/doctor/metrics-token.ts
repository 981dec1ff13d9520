import type { Config } from '../../config.js';
import { type Check, ok } from './check.js';

/** METRICS_TOKEN: whether GET /metrics is on. */
export function metricsTokenCheck(config: Config): Check {
  const name = 'metrics token';
  const metrics = config.metricsToken;
  return {
    name,
    async run() {
      return metrics === null
        ? ok(name, 'METRICS_TOKEN unset: GET /metrics is off (404)')
        : ok(name, 'METRICS_TOKEN set: GET /metrics is on behind it');
    },
  };
}
