import type { ComponentChildren } from 'preact';
import { Field } from '../components/form-field.tsx';
import type { FormField, FormValues } from './openapi-form.ts';

function hintOf(field: FormField): string | undefined {
  const parts: string[] = [];
  if (field.description !== '') parts.push(field.description);
  if (field.kind === 'list') parts.push('comma-separated');
  if (field.kind === 'json') parts.push('a JSON object');
  if (field.minimum !== null && field.maximum !== null) parts.push(`${field.minimum} to ${field.maximum}`);
  else if (field.minimum !== null) parts.push(`at least ${field.minimum}`);
  else if (field.maximum !== null) parts.push(`at most ${field.maximum}`);
  return parts.length === 0 ? undefined : parts.join('; ');
}

/** The control of one generated field. */
function Control({
  field,
  id,
  hintId,
  value,
  onValue,
}: {
  readonly field: FormField;
  readonly id: string;
  readonly hintId: string | undefined;
  readonly value: string;
  readonly onValue: (value: string) => void;
}) {
  const common = { id, name: field.name, 'aria-describedby': hintId, required: field.required };
  switch (field.kind) {
    case 'boolean':
    case 'choice': {
      const options = field.kind === 'boolean' ? ['true', 'false'] : field.options;
      const defaultLabel = field.defaultValue === null ? 'default' : `default (${field.defaultValue})`;
      return (
        <select {...common} value={value} onChange={(event) => onValue(event.currentTarget.value)}>
          <option value="">{defaultLabel}</option>
          {options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      );
    }
    case 'json':
      return (
        <textarea
          {...common}
          rows={3}
          spellcheck={false}
          value={value}
          onInput={(event) => onValue(event.currentTarget.value)}
        />
      );
    case 'integer':
    case 'number':
      return (
        <input
          {...common}
          type="number"
          step={field.kind === 'integer' ? '1' : 'any'}
          min={field.minimum ?? undefined}
          max={field.maximum ?? undefined}
          value={value}
          onInput={(event) => onValue(event.currentTarget.value)}
        />
      );
    default:
      return (
        <input
          {...common}
          type="text"
          inputMode={field.name === 'url' || field.name === 'query' ? 'url' : undefined}
          spellcheck={false}
          maxLength={field.maxLength ?? undefined}
          placeholder={field.name === 'url' || field.name === 'query' ? 'https://example.com' : undefined}
          value={value}
          onInput={(event) => onValue(event.currentTarget.value)}
        />
      );
  }
}

/**
 * Shown before "More parameters": the required fields, and `url`, which a page call needs unless
 * it sends `html` or `markdown` instead (so the document cannot mark it required).
 */
function isLead(field: FormField): boolean {
  return field.required || field.name === 'url';
}

/** The generated form's fields: the lead ones first, the others folded under "More parameters". */
export function OperationFields({
  fields,
  values,
  onValues,
  invalid,
}: {
  readonly fields: readonly FormField[];
  readonly values: FormValues;
  readonly onValues: (values: FormValues) => void;
  /** The field the last check refused. */
  readonly invalid: string | null;
}) {
  const render = (field: FormField): ComponentChildren => (
    <Field
      key={field.name}
      class={invalid === field.name ? 'invalid' : undefined}
      label={
        <>
          <code>{field.name}</code>
          {field.required && <span class="required"> (required)</span>}
        </>
      }
      hint={hintOf(field)}
    >
      {(id, hintId) => (
        <Control
          field={field}
          id={id}
          hintId={hintId}
          value={values[field.name] ?? ''}
          onValue={(value) => onValues({ ...values, [field.name]: value })}
        />
      )}
    </Field>
  );
  const required = fields.filter(isLead);
  const optional = fields.filter((f) => !isLead(f));
  const given = optional.filter((f) => (values[f.name] ?? '') !== '').length;
  return (
    <>
      {required.map(render)}
      {optional.length > 0 && (
        <details class="more-params">
          <summary>
            More parameters ({optional.length}
            {given > 0 ? `, ${given} set` : ''})
          </summary>
          <div class="params-grid">{optional.map(render)}</div>
        </details>
      )}
    </>
  );
}
