import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(fileURLToPath(import.meta.url));

/** Every production module under src/, as a path relative to it. */
function modules(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => file.split(path.sep).join('/'));
}

/** The src/-relative modules a module imports (relative specifiers only). */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  const specifiers = [...text.matchAll(/\bfrom '(\.{1,2}\/[^']+)'/g)].map((match) => match[1] as string);
  return specifiers.map((specifier) => path.posix.join(path.posix.dirname(file), specifier));
}

/** Modules outside `dir` that import from it, but those allowed to. */
function importersFromOutside(dir: string, allowed: readonly string[]): string[] {
  return modules().filter(
    (file) =>
      !file.startsWith(`${dir}/`) &&
      !allowed.includes(file) &&
      importsOf(file).some((target) => target.startsWith(`${dir}/`)),
  );
}

describe('layers (docs/architecture.md)', () => {
  it('nothing outside src/http/ imports it but the composition root and the command that listens', () => {
    expect(importersFromOutside('http', ['runtime.ts', 'cli/listen.ts'])).toEqual([]);
  });

  it('the requests import no door: HTTP, MCP, the CLI and jobs build their calls from them', () => {
    const doors = ['http/', 'mcp/', 'cli/', 'jobs/'];
    const offending = modules()
      .filter((file) => file.startsWith('requests/'))
      .filter((file) => importsOf(file).some((target) => doors.some((door) => target.startsWith(door))));
    expect(offending).toEqual([]);
  });
});
