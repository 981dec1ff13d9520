import { readFileSync } from 'node:fs';

/** The package's version, from package.json one level up (from src/ and from dist/ alike). */
export function packageVersion(): string {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}
