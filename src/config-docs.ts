import { expectedOf } from './config.js';
import { CONFIG_GROUPS, CONFIG_VARS, type ConfigVar } from './config-vars.js';

/** The lines around the README's generated configuration tables. */
export const CONFIG_DOCS_BEGIN =
  '<!-- config:begin (generated from src/config-vars.ts by `npm run docs:config`; edit there) -->';
export const CONFIG_DOCS_END = '<!-- config:end -->';

function defaultCell(variable: ConfigVar): string {
  if (variable.defaultText !== undefined) return variable.defaultText;
  const value = variable.default;
  if (value === null || value === '') return 'unset';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return `\`${value}\``;
  throw new Error(`${variable.name}: a default that is not a plain value needs a defaultText`);
}

function valuesCell(variable: ConfigVar): string {
  if (variable.type === 'choice') return variable.choices.map((choice) => `\`${choice}\``).join(', ');
  const unit = variable.type === 'integer' && variable.unit !== undefined ? ` (${variable.unit})` : '';
  return `${expectedOf(variable)}${unit}`;
}

/** The README's configuration tables, one per group, from CONFIG_VARS. */
export function configDocs(): string {
  const sections = Object.entries(CONFIG_GROUPS).map(([group, title]) => {
    const rows = (CONFIG_VARS as readonly ConfigVar[])
      .filter((variable) => variable.group === group)
      .map(
        (variable) =>
          `| \`${variable.name}\` | ${defaultCell(variable)} | ${valuesCell(variable)} | ${variable.description} |`,
      );
    return [
      `### ${title}`,
      '',
      '| variable | default | values | meaning |',
      '|---|---|---|---|',
      ...rows,
    ].join('\n');
  });
  return sections.join('\n\n');
}

/** The README with what lies between the markers replaced by configDocs(); throws when a marker is missing. */
export function withConfigDocs(readme: string): string {
  const begin = readme.indexOf(CONFIG_DOCS_BEGIN);
  const end = readme.indexOf(CONFIG_DOCS_END);
  if (begin === -1 || end < begin) {
    throw new Error(`the README has no "${CONFIG_DOCS_BEGIN}" ... "${CONFIG_DOCS_END}" section`);
  }
  return `${readme.slice(0, begin + CONFIG_DOCS_BEGIN.length)}\n\n${configDocs()}\n\n${readme.slice(end)}`;
}
