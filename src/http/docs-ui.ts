import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

/*
 * The interactive API reference at /docs in webcap's own name and look (the console's palette,
 * console/src/styles/base.css), not the framework's: swagger-ui with our title, mark, favicon and a
 * stylesheet, under a Content-Security-Policy as strict as the console's. swagger-ui loads its
 * scripts and styles from files; the logo is a data: image, as the plugin embeds it.
 */

/** webcap's mark, as the console's favicon draws it (console/src/assets/favicon.svg). */
const MARK =
  '<rect width="32" height="32" rx="8" fill="#3b32c8"/><path d="M9 11h14v10H9z" fill="none" stroke="#fff" stroke-width="2.5" stroke-linejoin="round"/><circle cx="16" cy="16" r="2.6" fill="#fff"/>';

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${MARK}</svg>`;

/** The mark and the words "webcap API reference", for the top bar. */
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 270 32" width="270" height="32" role="img" aria-label="webcap API reference"><g>${MARK}</g><text x="42" y="22.5" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif" font-size="20" font-weight="700" fill="#1a1f2e">webcap</text><text x="134" y="22.5" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif" font-size="16" fill="#545d72">API reference</text></svg>`;

const THEME_CSS = `
:root {
  --wc-bg: #f6f7fb; --wc-surface: #ffffff; --wc-border: #dde1ea; --wc-text: #1a1f2e;
  --wc-muted: #545d72; --wc-accent: #3b32c8; --wc-accent-soft: #ecebfd; --wc-good: #16794a;
  --wc-warn: #8a5a00; --wc-bad: #b42318; --wc-info: #1d5fb8;
  --wc-font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --wc-mono: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace;
}
body { margin: 0; background: var(--wc-bg); }
.swagger-ui, .swagger-ui .info .title, .swagger-ui .opblock-tag, .swagger-ui .opblock .opblock-summary-description,
.swagger-ui .btn, .swagger-ui table thead tr th, .swagger-ui .parameter__name, .swagger-ui .response-col_status,
.swagger-ui label, .swagger-ui select, .swagger-ui input, .swagger-ui .model-title, .swagger-ui section.models h4 {
  font-family: var(--wc-font); color: var(--wc-text);
}
.swagger-ui .opblock .opblock-summary-path, .swagger-ui .opblock .opblock-summary-path__deprecated,
.swagger-ui .microlight, .swagger-ui code, .swagger-ui .parameter__type { font-family: var(--wc-mono); }
.swagger-ui .topbar { background: var(--wc-surface); border-bottom: 1px solid var(--wc-border); padding: 12px 0; }
.swagger-ui .topbar .download-url-wrapper, .swagger-ui .topbar .dark-mode-toggle { display: none; }
.swagger-ui .topbar-wrapper img { height: 32px; width: auto; }
.swagger-ui .topbar a { max-width: none; }
.swagger-ui .wrapper { max-width: 1120px; padding: 0 24px; }
.swagger-ui .information-container.wrapper { padding-top: 8px; }
.swagger-ui .info { margin: 32px 0 24px; }
.swagger-ui .info .title { font-size: 32px; letter-spacing: -0.01em; }
.swagger-ui .info .title small { background: var(--wc-muted); }
.swagger-ui .info .title small.version-stamp { background: var(--wc-accent); }
.swagger-ui .info .base-url, .swagger-ui .info a { color: var(--wc-accent); }
.swagger-ui .info .description, .swagger-ui .info p, .swagger-ui .info li { font-size: 15px; line-height: 1.6; color: var(--wc-text); }
.swagger-ui .scheme-container { background: var(--wc-surface); box-shadow: none; border-top: 1px solid var(--wc-border); border-bottom: 1px solid var(--wc-border); }
.swagger-ui .opblock-tag { border-bottom: 1px solid var(--wc-border); font-size: 20px; text-transform: capitalize; }
.swagger-ui .opblock { border-radius: 10px; box-shadow: 0 1px 2px rgb(16 24 40 / 6%); background: var(--wc-surface); border-color: var(--wc-border); }
.swagger-ui .opblock .opblock-summary { border-color: var(--wc-border); }
.swagger-ui .opblock .opblock-summary-method { border-radius: 6px; min-width: 72px; font-family: var(--wc-font); }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: var(--wc-accent); }
.swagger-ui .opblock.opblock-get { background: var(--wc-surface); border-color: var(--wc-border); }
.swagger-ui .opblock.opblock-get .opblock-summary { border-color: var(--wc-border); }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: var(--wc-good); }
.swagger-ui .opblock.opblock-post { background: var(--wc-surface); border-color: var(--wc-border); }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: var(--wc-warn); }
.swagger-ui .opblock.opblock-patch { background: var(--wc-surface); border-color: var(--wc-border); }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: var(--wc-bad); }
.swagger-ui .opblock.opblock-delete { background: var(--wc-surface); border-color: var(--wc-border); }
.swagger-ui .opblock .opblock-section-header { background: var(--wc-bg); box-shadow: none; }
.swagger-ui .btn { border-radius: 6px; box-shadow: none; }
.swagger-ui .btn.authorize, .swagger-ui .btn.try-out__btn { color: var(--wc-accent); border-color: var(--wc-accent); }
.swagger-ui .btn.authorize svg { fill: var(--wc-accent); }
.swagger-ui .btn.execute { background: var(--wc-accent); border-color: var(--wc-accent); }
.swagger-ui .btn:focus-visible, .swagger-ui a:focus-visible, .swagger-ui input:focus-visible, .swagger-ui select:focus-visible,
.swagger-ui .opblock-summary-control:focus-visible { outline: 3px solid #5b4ff0; outline-offset: 2px; }
.swagger-ui .response-col_status { font-weight: 600; }
.swagger-ui .renderedMarkdown code, .swagger-ui .markdown code { color: var(--wc-accent); background: var(--wc-accent-soft); }
.swagger-ui .filter-container .operation-filter-input { width: 100%; box-sizing: border-box; }
.swagger-ui section.models { border-radius: 10px; border-color: var(--wc-border); background: var(--wc-surface); }
@media (max-width: 600px) {
  .swagger-ui .wrapper { padding: 0 12px; }
  .swagger-ui .topbar-wrapper img { height: 26px; }
  .swagger-ui .info .title { font-size: 26px; }
}
`;

/**
 * What /docs allows: its own files and the logo's data: image, nothing from elsewhere. swagger-ui
 * sets element styles from script (CSSOM), which style-src does not govern; it has no inline script.
 * Its bundle applies one inline style sheet as it starts, allowed by its hash alone (swagger-ui 5.x
 * as @fastify/swagger-ui 6 ships it; another version's would show a CSP report in the console).
 */
const DOCS_CSP = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
  'img-src': "'self' data:",
  'font-src': "'self'",
  'connect-src': "'self'",
  'form-action': "'self'",
  'base-uri': "'none'",
  'frame-ancestors': "'none'",
} as const;

/** The options /docs is registered with. */
export const docsUiOptions: FastifySwaggerUiOptions = {
  routePrefix: '/docs',
  theme: {
    title: 'webcap API reference',
    css: [{ filename: 'webcap.css', content: THEME_CSS }],
    favicon: [
      { filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: FAVICON },
    ],
  },
  logo: { type: 'image/svg+xml', content: LOGO, href: '/docs', target: '_self' },
  uiConfig: {
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    filter: true,
    tryItOutEnabled: false,
    persistAuthorization: false,
    syntaxHighlight: { activate: true, theme: 'nord' },
  },
  staticCSP: DOCS_CSP,
  // The spec document's own link would otherwise be checked by swagger.io's online validator.
  validatorUrl: false,
};
