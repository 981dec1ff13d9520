import { escapeHtml, firstHeading, markdownToHtml } from './markdown-html.js';

/**
 * The default stylesheet of a Markdown page: a readable column of system fonts, light by default
 * and dark when the page is shown with `prefers-color-scheme: dark`. Nothing in it loads from the
 * network (no web fonts, no images), so a rendered Markdown page makes no request of its own.
 */
export const MARKDOWN_STYLESHEET = `
:root { color-scheme: light dark; --text: #1f2328; --muted: #59636e; --background: #ffffff;
  --subtle: #f6f8fa; --border: #d1d9e0; --link: #0969da; }
@media (prefers-color-scheme: dark) {
  :root { --text: #e6edf3; --muted: #9198a1; --background: #0d1117; --subtle: #151b23;
    --border: #3d444d; --link: #4493f8; }
}
html { background: var(--background); color: var(--text); }
body { margin: 0; font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans",
  "Liberation Sans", Arial, sans-serif; }
main { box-sizing: border-box; max-width: 48rem; margin: 0 auto; padding: 2rem 1.5rem; overflow-wrap: break-word; }
h1, h2, h3, h4, h5, h6 { margin: 1.5em 0 0.5em; line-height: 1.25; font-weight: 600; }
h1 { font-size: 2em; padding-bottom: 0.3em; border-bottom: 1px solid var(--border); }
h2 { font-size: 1.5em; padding-bottom: 0.3em; border-bottom: 1px solid var(--border); }
h3 { font-size: 1.25em; }
main > :first-child { margin-top: 0; }
p, ul, ol, blockquote, pre, table { margin: 0 0 1em; }
a { color: var(--link); text-decoration: none; }
a:hover { text-decoration: underline; }
ul, ol { padding-left: 2em; }
li + li { margin-top: 0.25em; }
blockquote { padding: 0 1em; color: var(--muted); border-left: 0.25em solid var(--border); }
code { font: 0.875em/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  background: var(--subtle); padding: 0.2em 0.4em; border-radius: 6px; }
pre { background: var(--subtle); padding: 1em; border-radius: 6px; overflow: auto; }
pre code { background: none; padding: 0; font-size: 0.875em; }
hr { height: 0.25em; margin: 1.5em 0; border: 0; background: var(--border); }
table { border-collapse: collapse; display: block; max-width: 100%; overflow: auto; }
th, td { padding: 0.4em 0.8em; border: 1px solid var(--border); }
th { font-weight: 600; background: var(--subtle); }
img { max-width: 100%; }
`;

/**
 * A caller's Markdown as a whole HTML page: its first heading as the title, the default
 * stylesheet, the rendered document in <main>. Linear in the Markdown's size; CPU-bound on a
 * large document, so it runs in an extractor process (tasks.ts).
 */
export function markdownPage(markdown: string): string {
  const title = firstHeading(markdown);
  return [
    '<!doctype html>',
    '<html>',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    ...(title === null ? [] : [`<title>${escapeHtml(title)}</title>`]),
    `<style>${MARKDOWN_STYLESHEET}</style>`,
    '</head>',
    '<body>',
    `<main>\n${markdownToHtml(markdown)}\n</main>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
