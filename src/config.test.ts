import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has embedded defaults: SQLite under ./data, 127.0.0.1:8080, admin API off', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: path.resolve('data'),
      database: { kind: 'sqlite', file: path.resolve('data/webcap.sqlite') },
      adminToken: null,
      bootstrapQuota: 1000,
      bootstrapKey: null,
      logLevel: 'info',
      bodyLimitBytes: 1_048_576,
      publicBaseUrl: null,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('switches to PostgreSQL with DATABASE_URL', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/webcap', DATABASE_SCHEMA: 'tenant_a' });
    expect(config.database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@db:5432/webcap',
      schema: 'tenant_a',
    });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', WEBCAP_ADMIN_TOKEN: '' })).toMatchObject({ port: 8080, adminToken: null });
  });

  it.each([
    ['PORT', '80x', 'PORT must be an integer from 0 to 65535 (got "80x")'],
    ['PORT', '70000', 'PORT must be an integer from 0 to 65535 (got "70000")'],
    [
      'LOG_LEVEL',
      'loud',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    ],
    [
      'DATABASE_URL',
      'mysql://x',
      'DATABASE_URL must be a URL with scheme postgres: or postgresql: (got "mysql://x")',
    ],
    [
      'DATABASE_SCHEMA',
      'Robert; drop',
      'DATABASE_SCHEMA must be a lower-case SQL identifier (got "Robert; drop")',
    ],
    [
      'WEBCAP_ADMIN_TOKEN',
      'short',
      'WEBCAP_ADMIN_TOKEN must be at least 16 characters without spaces (got "short")',
    ],
    [
      'WEBCAP_BOOTSTRAP_QUOTA',
      '-1',
      'WEBCAP_BOOTSTRAP_QUOTA must be an integer from 0 to 1000000000 (got "-1")',
    ],
    [
      'PUBLIC_BASE_URL',
      'ftp://x',
      'PUBLIC_BASE_URL must be a URL with scheme http: or https: (got "ftp://x")',
    ],
  ])('refuses %s=%s naming the variable', (variable, value, message) => {
    const attempt = () => loadConfig({ [variable]: value });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(message);
  });
});
