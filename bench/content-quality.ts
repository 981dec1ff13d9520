// Main-content quality and speed on test/fixtures/content: token F1 of each method against the
// labelled text, and the time of parse + main content + Markdown per page.
// Run: npx tsx bench/content-quality.ts

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readability } from '@mozilla/readability';
import { DefuddleClass } from 'defuddle/node';
import { parseHTML } from 'linkedom';
import { extractMainContent, plainText } from '../src/engines/content/main-content.js';
import { htmlToMarkdown } from '../src/engines/content/markdown.js';
import { tokenF1 } from '../test/helpers/token-f1.js';

const dir = join(import.meta.dirname, '../test/fixtures/content');
const baseUrl = 'https://www.example.com/2024/05/14/story';

// Each library alone on the page (defuddle never calls out: useAsync is off), beside the engine.
type Method = (document: Document) => string;
const methods: Record<string, Method> = {
  defuddle: (d) => new DefuddleClass(d, { url: baseUrl, useAsync: false }).parse().content,
  readability: (d) => new Readability(d).parse()?.content ?? '',
  combined: (d) => extractMainContent(d, baseUrl).html,
};

function textOfHtml(html: string): string {
  return plainText(parseHTML(`<!DOCTYPE html><html><body>${html}</body></html>`).document.body);
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

const names = readdirSync(dir)
  .filter((f) => f.endsWith('.html'))
  .map((f) => f.slice(0, -5))
  .sort();
const scores: Record<string, number[]> = Object.fromEntries(Object.keys(methods).map((m) => [m, []]));
console.log(
  `${'page'.padEnd(30)} ${'KB'.padStart(4)} ${Object.keys(methods)
    .map((m) => m.padStart(12))
    .join('')}`,
);
for (const name of names) {
  const html = readFileSync(join(dir, `${name}.html`), 'utf8');
  const expected = readFileSync(join(dir, `${name}.expected.txt`), 'utf8');
  const cells: string[] = [];
  for (const [m, run] of Object.entries(methods)) {
    const f1 = tokenF1(textOfHtml(run(parseHTML(html).document)), expected).f1;
    scores[m]?.push(f1);
    cells.push(f1.toFixed(3).padStart(12));
  }
  console.log(`${name.padEnd(30)} ${String(Math.round(html.length / 1024)).padStart(4)} ${cells.join('')}`);
}
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(
  `${'mean F1'.padEnd(35)} ${Object.values(scores)
    .map((s) => mean(s).toFixed(3).padStart(12))
    .join('')}`,
);
console.log(
  `${'worst F1'.padEnd(35)} ${Object.values(scores)
    .map((s) =>
      Math.min(...s)
        .toFixed(3)
        .padStart(12),
    )
    .join('')}`,
);

// Timing: parse + main content + Markdown of the main content, the engine's work for one page.
const rounds = Number(process.env.ROUNDS ?? 5);
const pages = names.map((n) => readFileSync(join(dir, `${n}.html`), 'utf8'));
const timings: Record<string, number[]> = { all: [], '>=60KB': [] };
const perPage = new Map<string, number[]>();
for (let r = 0; r < rounds + 1; r++) {
  for (const [i, html] of pages.entries()) {
    const t0 = performance.now();
    const { document } = parseHTML(html);
    const main = extractMainContent(document, baseUrl);
    htmlToMarkdown(main.html, baseUrl);
    const ms = performance.now() - t0;
    if (r === 0) continue; // warm-up round
    timings.all?.push(ms);
    const name = names[i] ?? '';
    perPage.set(name, [...(perPage.get(name) ?? []), ms]);
    if (html.length >= 60 * 1024) timings['>=60KB']?.push(ms);
  }
}
const slowest = [...perPage]
  .map(
    ([name, ts]) =>
      [
        name,
        quantile(
          [...ts].sort((a, b) => a - b),
          0.5,
        ),
      ] as const,
  )
  .sort((a, b) => b[1] - a[1])
  .slice(0, 4);
console.log(`slowest pages (median ms): ${slowest.map(([n, ms]) => `${n} ${ms.toFixed(1)}`).join(', ')}`);
for (const [label, ts] of Object.entries(timings)) {
  const sorted = [...ts].sort((a, b) => a - b);
  console.log(
    `time per page (${label}, ${sorted.length} runs): median ${quantile(sorted, 0.5).toFixed(1)} ms, p95 ${quantile(sorted, 0.95).toFixed(1)} ms`,
  );
}
