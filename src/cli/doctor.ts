import { Command, InvalidArgumentError } from 'commander';
import { type Config, ConfigError } from '../config.js';
import type { Write } from './admin.js';
import { CallFailure } from './cli-errors.js';
import type { Check, CheckResult } from './doctor/check.js';
import { runChecks } from './doctor/run-checks.js';
import { EXIT } from './exit-codes.js';

const DEFAULT_TIMEOUT_MS = 5000;
const MAX_TIMEOUT_MS = 600_000;

function timeout(raw: string): number {
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 100 && n <= MAX_TIMEOUT_MS)) {
    throw new InvalidArgumentError(`expected an integer from 100 to ${MAX_TIMEOUT_MS}`);
  }
  return n;
}

function configFailure(error: ConfigError): CheckResult {
  return {
    name: 'config',
    status: 'fail',
    detail: error.message,
    fix: `correct ${error.variable}, or unset it for its default (README.md, "Configuration")`,
  };
}

/** The report: `ok|warn|fail  name  detail`, a `  fix:` line under each miss. */
function formatReport(results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((result) => result.name.length));
  return results
    .map((result) => {
      const line = `${result.status.padEnd(4)}  ${result.name.padEnd(width)}  ${result.detail}`;
      return result.fix === null ? line : `${line}\n  fix: ${result.fix}`;
    })
    .join('\n')
    .concat('\n');
}

/**
 * `webcap doctor`: checks what the machine and the configuration need, and says how to fix each
 * miss. Exits 0 when no check failed (warnings do not fail), 1 when one did, 2 when the
 * environment does not parse (reported as the first failed check, beside the checks that need no
 * configuration).
 */
export function doctorCommand(config: () => Config, stdout: Write): Command {
  return new Command('doctor')
    .description(
      'check Chromium, fonts, the database, Redis, blobs, secrets and the port; say how to fix each miss',
    )
    .option('--json', 'print JSON')
    .option('--timeout-ms <ms>', 'bound of each check', timeout, DEFAULT_TIMEOUT_MS)
    .action(async (opts: { json?: boolean; timeoutMs: number }) => {
      // Loaded only here: the checks bring the database, Redis and S3 clients.
      const { configuredChecks, machineChecks } = await import('./doctor/checks.js');
      let checks: Check[];
      let configError: ConfigError | null = null;
      try {
        checks = configuredChecks(config());
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        configError = error;
        checks = machineChecks();
      }
      const results = await runChecks(checks, opts.timeoutMs);
      const report: CheckResult[] = [
        configError === null
          ? { name: 'config', status: 'ok', detail: 'the environment parses', fix: null }
          : configFailure(configError),
        ...results,
      ];
      stdout(opts.json === true ? `${JSON.stringify({ checks: report }, null, 2)}\n` : formatReport(report));
      // runWebcap reports these on stderr, as every command's, and exits 2 and 1.
      if (configError !== null) throw configError;
      const failed = report.filter((result) => result.status === 'fail').length;
      if (failed > 0) {
        throw new CallFailure(`doctor: ${failed} check${failed === 1 ? '' : 's'} failed`, EXIT.refused);
      }
    });
}
