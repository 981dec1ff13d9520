import type { Config } from '../../config.js';
import { modeFix, octalMode, openDataPaths } from '../../store/private-files.js';
import type { Check } from './check.js';

/** The data directory and the secrets below it are owner-only (src/store/private-files.ts). */
export function dataDirModesCheck(config: Config): Check {
  const name = 'data dir modes';
  return {
    name,
    async run() {
      const open = await openDataPaths(config);
      if (open.length === 0) {
        return {
          name,
          status: 'ok',
          detail: `${config.dataDir}: owner-only, or nothing secret kept there`,
          fix: null,
        };
      }
      return {
        name,
        status: 'warn',
        detail: `other users may read: ${open.map((entry) => `${entry.path} (${octalMode(entry.mode)})`).join(', ')}`,
        fix: open.map(modeFix).join('; '),
      };
    },
  };
}
