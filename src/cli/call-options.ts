import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { type Command, Option } from 'commander';
import { type TSchema, Type } from 'typebox';
import { UsageError } from './cli-errors.js';

/** The query parameters of one endpoint, name → schema, as its route declares them. */
export type Fields = Readonly<Record<string, TSchema>>;

/** What a verb's options carry once parsed and validated: the query the SDK sends. */
export type CallParameters = Record<string, string | number | boolean | string[]>;

interface JsonSchema {
  readonly type?: string;
  readonly anyOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly description?: string;
}

/** A flag (Flag or boolean) is a bare option; an array may be given again; anything else takes a value. */
function kindOf(schema: JsonSchema): 'flag' | 'list' | 'value' {
  if (schema.type === 'boolean' || schema.anyOf?.some((branch) => branch.type === 'boolean')) return 'flag';
  if (schema.type === 'array') return 'list';
  return 'value';
}

/** What a value option's help shows it takes. */
function placeholder(schema: JsonSchema): string {
  if (schema.enum !== undefined) return '<name>';
  if (schema.type === 'integer' || schema.type === 'number') return '<n>';
  return '<text>';
}

/** `full_page` → `full-page`: the spelling options have on the command line. */
function dashed(name: string): string {
  return name.replaceAll('_', '-');
}

/** The attribute commander stores `--full-page` under: `fullPage`. */
function attributeOf(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_match, c: string) => c.toUpperCase());
}

function describe(schema: JsonSchema): string {
  const parts = [schema.description ?? ''];
  if (schema.enum !== undefined) parts.push(`one of: ${schema.enum.join(', ')}`);
  if (schema.default !== undefined) parts.push(`default ${String(schema.default)}`);
  return parts.filter((part) => part !== '').join('; ');
}

/**
 * Adds an option per field of `fields` but those in `omit` (the verb's positional URL, the key,
 * is_async): `--name value` for a value, a bare `--name` for a flag (and a hidden `--no-name` to
 * send false), `--name value` given again for a list. A field added to a route's schema becomes
 * an option by itself.
 */
export function addFieldOptions(command: Command, fields: Fields, omit: readonly string[]): void {
  for (const [name, schema] of Object.entries(fields)) {
    if (omit.includes(name)) continue;
    const json = schema as JsonSchema;
    const kind = kindOf(json);
    const flag = `--${dashed(name)}`;
    if (kind === 'flag') {
      command.addOption(new Option(flag, describe(json) || `send ${name}=true`));
      command.addOption(new Option(`--no-${dashed(name)}`, `send ${name}=false`).hideHelp());
    } else if (kind === 'list') {
      command.addOption(
        new Option(
          `${flag} <value>`,
          `${describe(json)}${describe(json) ? '; ' : ''}may be repeated`,
        ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
      );
    } else {
      command.addOption(new Option(`${flag} ${placeholder(json)}`, describe(json)));
    }
  }
}

/** The name of the parameter an Ajv error is about, as the user typed it. */
function optionName(error: ErrorObject, positional: Readonly<Record<string, string>>): string {
  const field =
    typeof error.params.missingProperty === 'string'
      ? error.params.missingProperty
      : (error.instancePath.split('/')[1] ?? '');
  return positional[field] ?? `--${dashed(field)}`;
}

function message(error: ErrorObject, positional: Readonly<Record<string, string>>): string {
  const name = optionName(error, positional);
  const allowed = error.params.allowedValues;
  if (Array.isArray(allowed)) return `${name} must be one of ${allowed.join(', ')}`;
  if (error.keyword === 'anyOf') return `${name} is not a valid value`;
  return `${name} ${error.message ?? 'is invalid'}`;
}

// The server's own validation options (src/http/app.ts): values arrive as text and are coerced
// by the schema, an array from one value, numbers checked against their bounds.
const ajv = new Ajv({
  coerceTypes: 'array',
  removeAdditional: false,
  allErrors: false,
  strictNumbers: false,
  strict: false,
});
const validators = new WeakMap<Fields, ValidateFunction>();

function validatorOf(fields: Fields): ValidateFunction {
  let validate = validators.get(fields);
  if (validate === undefined) {
    validate = ajv.compile(Type.Object({ ...fields }, { additionalProperties: false }));
    validators.set(fields, validate);
  }
  return validate;
}

/**
 * Refuses a call whose endpoint takes html and markdown but that names no page: none of url,
 * html, markdown in `given` (the positional and page files) or the options. `how` lists the
 * verb's ways to give one.
 */
export function requirePage(
  fields: Fields,
  given: Readonly<Record<string, string>>,
  options: Readonly<Record<string, unknown>>,
  how: string,
): void {
  const named = ['url', 'html', 'markdown'].some((name) => name in given || options[name] !== undefined);
  if ('html' in fields && !named) throw new UsageError(`give the page: ${how}`);
}

/**
 * The query of a call from commander's parsed options and the verb's positional values, checked
 * against the route's schema as the server checks it. A bad value is a UsageError naming the
 * option (or the positional, by the names in `positional`: field → shown name).
 */
export function callParameters(
  fields: Fields,
  options: Readonly<Record<string, unknown>>,
  given: Readonly<Record<string, string>>,
  positional: Readonly<Record<string, string>> = {},
): CallParameters {
  const query: Record<string, unknown> = { ...given };
  for (const name of Object.keys(fields)) {
    const value = options[attributeOf(name)];
    if (value !== undefined && !(name in given)) query[name] = value;
  }
  const validate = validatorOf(fields);
  if (!validate(query)) {
    const error = validate.errors?.[0];
    throw new UsageError(error === undefined ? 'invalid parameters' : message(error, positional));
  }
  return query as CallParameters;
}

/**
 * `--full_page` is `--full-page`: rewrites the underscore spelling of the options the command
 * named by `args` has (the API's own parameter names), up to `--`.
 */
export function spellOptions(program: Command, args: readonly string[]): string[] {
  let command = program;
  const out: string[] = [];
  let rest = false;
  for (const arg of args) {
    const sub = command.commands.find((c) => c.name() === arg);
    if (sub !== undefined && out.every((a) => !a.startsWith('-'))) command = sub;
    if (arg === '--') rest = true;
    const [flag = '', ...value] = arg.split('=');
    const spelled = dashed(flag);
    if (
      !rest &&
      flag.startsWith('--') &&
      flag.includes('_') &&
      command.options.some((o) => o.long === spelled)
    ) {
      out.push([spelled, ...value].join('='));
    } else {
      out.push(arg);
    }
  }
  return out;
}
