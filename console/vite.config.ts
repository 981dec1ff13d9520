import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Built into the service's dist/ and served under /console (docs/console.md, "The front end"):
// hashed assets under dist/console/assets/, which the service caches for a year.
export default defineConfig({
  base: '/console/',
  root: fileURLToPath(new URL('.', import.meta.url)),
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Everything is a file of its own: the CSP allows no inline script, style or data: script.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
