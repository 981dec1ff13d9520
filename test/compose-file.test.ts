import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config.js';
import { CONFIG_VARS } from '../src/config-vars.js';

/*
 * compose.yaml read as Compose reads it (anchors and merge keys, then `${VAR}` interpolation with a
 * .env's values), without starting anything: the ollama profile's services, what they wait for,
 * and the settings the webcap nodes get with and without it. test/containers/compose.test.ts runs
 * the default topology itself (with podman, in `npm run test:containers`); the profile is checked
 * here, where no model is pulled.
 */

interface Service {
  image?: string;
  profiles?: string[];
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
}

interface ComposeFile {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const TEXT = fs.readFileSync('compose.yaml', 'utf8');

/** Compose's interpolation of a value: `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `$$`. */
function interpolate(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\{(\w+)(?:(:?[-?])([^}]*))?\}/g, (whole, name, op, arg) => {
    if (whole === '$$') return '$';
    const value = env[name as string];
    if (op === ':-') return value === undefined || value === '' ? (arg as string) : value;
    if (op === '-') return value ?? (arg as string);
    if (op === ':?' || op === '?') {
      if (value === undefined || value === '') throw new Error(`${name}: ${arg}`);
      return value;
    }
    return value ?? '';
  });
}

/** Every string in the parsed file interpolated, as Compose does after reading the YAML. */
function interpolated(value: unknown, env: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string') return interpolate(value, env);
  if (Array.isArray(value)) return value.map((item) => interpolated(item, env));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolated(item, env)]));
}

/** What a .env filled from .env.example holds: every secret the file requires. */
const SECRETS = {
  POSTGRES_PASSWORD: 'postgres-password-0123456789',
  REDIS_PASSWORD: 'redis-password-0123456789',
  S3_ACCESS_KEY: 'webcap',
  S3_SECRET_KEY: 's3-secret-0123456789',
  WEBCAP_SIGNING_SECRET: 'a'.repeat(64),
  WEBCAP_ADMIN_TOKEN: 'b'.repeat(32),
  METRICS_TOKEN: 'c'.repeat(32),
};

/** compose.yaml as Compose sees it with these .env values. */
function composeWith(env: Readonly<Record<string, string>> = {}): ComposeFile {
  return interpolated(parse(TEXT, { merge: true }), { ...SECRETS, ...env }) as ComposeFile;
}

const WEBCAP_NODES = ['serve-1', 'serve-2', 'worker-1', 'worker-2'];
const DEFAULT_MODEL = 'qwen2.5:0.5b-instruct';

/** The configuration a webcap node parses from its environment. */
function nodeConfig(file: ComposeFile, node: string) {
  return loadConfig(file.services[node]?.environment ?? {});
}

const defaultOf = (name: string) => CONFIG_VARS.find((variable) => variable.name === name)?.default;

describe('compose.yaml: the ollama profile', () => {
  it('runs Ollama and a one-shot pull of the model only with the profile; nothing else waits on them', () => {
    const { services, volumes } = composeWith();
    const profiled = Object.entries(services).filter(([, service]) => service.profiles !== undefined);
    expect(Object.fromEntries(profiled.map(([name, service]) => [name, service.profiles]))).toEqual({
      ollama: ['ollama'],
      'ollama-pull': ['ollama'],
    });
    for (const [name, service] of Object.entries(services)) {
      if (service.profiles !== undefined) continue;
      // Without the profile these services are absent: a dependency on one would stop `up`.
      expect(Object.keys(service.depends_on ?? {}), name).not.toContain('ollama');
      expect(Object.keys(service.depends_on ?? {}), name).not.toContain('ollama-pull');
    }

    const { ollama, 'ollama-pull': pull } = services as Record<string, Service>;
    expect(ollama?.healthcheck?.test).toEqual(['CMD', 'ollama', 'list']);
    expect(ollama?.volumes).toEqual(['ollama:/root/.ollama']);
    expect(volumes).toHaveProperty('ollama');
    // The pull goes through the server, into its volume, once the server answers.
    expect(pull).toMatchObject({
      image: ollama?.image,
      command: ['pull', DEFAULT_MODEL],
      environment: { OLLAMA_HOST: 'http://ollama:11434' },
      depends_on: { ollama: { condition: 'service_healthy' } },
    });
  });

  it("gives the model a context that holds webcap's longest prompt and answer", () => {
    const context = Number(composeWith().services.ollama?.environment?.OLLAMA_CONTEXT_LENGTH);
    // The instructions take about 700 tokens beside the page's budget (docs/analyze.md).
    const needed =
      Number(defaultOf('ANALYZE_MAX_INPUT_TOKENS')) + 700 + Number(defaultOf('ANALYZE_MAX_OUTPUT_TOKENS'));
    expect(context).toBeGreaterThanOrEqual(needed);
  });

  it('points every webcap node at the model it pulls with ANALYZER=openai, and at none without', () => {
    const withModel = composeWith({ ANALYZER: 'openai' });
    const plain = composeWith();
    for (const node of WEBCAP_NODES) {
      expect(nodeConfig(withModel, node).analyzer, node).toMatchObject({
        kind: 'openai',
        baseUrl: 'http://ollama:11434/v1',
        model: DEFAULT_MODEL,
      });
      expect(nodeConfig(withModel, node).analyzer, node).not.toHaveProperty('apiKey', expect.any(String));
      expect(nodeConfig(plain, node).analyzer, node).toEqual({ kind: 'extractive' });
    }
    // Another model of Ollama's library: the one pulled is the one asked for.
    const bigger = composeWith({ ANALYZER: 'openai', ANALYZE_OPENAI_MODEL: 'qwen2.5:7b-instruct' });
    expect(bigger.services['ollama-pull']?.command).toEqual(['pull', 'qwen2.5:7b-instruct']);
    expect(nodeConfig(bigger, 'serve-1').analyzer).toMatchObject({ model: 'qwen2.5:7b-instruct' });
    // Any other OpenAI-compatible endpoint, with its key.
    const hosted = composeWith({
      ANALYZER: 'openai',
      ANALYZE_OPENAI_BASE_URL: 'https://api.openai.com/v1',
      ANALYZE_OPENAI_MODEL: 'gpt-4o-mini',
      ANALYZE_OPENAI_API_KEY: 'sk-test',
    });
    expect(nodeConfig(hosted, 'worker-1').analyzer).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-4o-mini',
      apiKey: 'sk-test',
    });
  });
});
