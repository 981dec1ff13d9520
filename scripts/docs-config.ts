// `npm run docs:config`: regenerates the README's configuration tables from src/config-vars.ts.
import fs from 'node:fs';
import { withConfigDocs } from '../src/config-docs.js';

const readme = new URL('../README.md', import.meta.url);
fs.writeFileSync(readme, withConfigDocs(fs.readFileSync(readme, 'utf8')));
