import { useState } from 'preact/hooks';
import type { ConsoleKey, KeyQuotas } from '../api/types.ts';
import { FormError, SelectInput, TextInput } from '../components/form-field.tsx';

/** What the key forms send: the fields of POST /console/api/keys and PATCH /console/api/keys/{id}. */
export interface KeyFields {
  readonly alias: string;
  readonly category: string;
  readonly expires: string | null;
  readonly quotas: KeyQuotas;
}

const QUOTAS = ['total', 'daily', 'weekly', 'monthly'] as const;

const CATEGORIES: ReadonlyArray<readonly [string, string]> = [
  ['production', 'production (wc_live_…)'],
  ['test', 'test (wc_test_…)'],
];

/** The form of a new key or of a key's settings; blank quotas are no limit. */
export function KeyForm({
  initial,
  submitLabel,
  busy,
  error,
  onSubmit,
  onCancel,
}: {
  readonly initial: ConsoleKey | null;
  readonly submitLabel: string;
  readonly busy: boolean;
  readonly error: string | null;
  readonly onSubmit: (fields: KeyFields) => void;
  readonly onCancel: () => void;
}) {
  const [alias, setAlias] = useState(initial?.alias ?? '');
  const [category, setCategory] = useState(initial?.category ?? 'production');
  const [expires, setExpires] = useState(initial?.expires_at?.slice(0, 10) ?? '');
  const [quotas, setQuotas] = useState<Record<string, string>>(
    Object.fromEntries(QUOTAS.map((name) => [name, initial?.quotas[name]?.toString() ?? ''])),
  );
  const [formError, setFormError] = useState<string | null>(null);
  const categories = CATEGORIES.some(([value]) => value === category)
    ? CATEGORIES
    : [...CATEGORIES, [category, category] as const];

  const submit = (event: Event) => {
    event.preventDefault();
    const parsed: Record<string, number | null> = {};
    for (const name of QUOTAS) {
      const text = (quotas[name] ?? '').trim();
      const value = Number(text);
      if (text !== '' && !(Number.isInteger(value) && value >= 0)) {
        setFormError(`The ${name} quota must be a whole number (blank for no limit).`);
        return;
      }
      parsed[name] = text === '' ? null : value;
    }
    setFormError(null);
    onSubmit({
      alias: alias.trim(),
      category,
      expires: expires === '' ? null : expires,
      quotas: parsed as unknown as KeyQuotas,
    });
  };

  return (
    <form class="stack" onSubmit={submit}>
      <TextInput
        label="Alias"
        hint="A name to tell the key apart, such as backend or ci."
        maxLength={200}
        value={alias}
        onValue={setAlias}
        data-autofocus
      />
      <SelectInput label="Category" value={category} onValue={setCategory} options={categories} />
      <TextInput
        label="Expires on"
        hint="Blank: never. The key stops working at the start of that day (UTC)."
        type="date"
        value={expires}
        onValue={setExpires}
      />
      <fieldset class="fieldset">
        <legend>Quotas (billed calls; blank for no limit)</legend>
        <div class="grid-4">
          {QUOTAS.map((name) => (
            <TextInput
              key={name}
              label={name[0]?.toUpperCase() + name.slice(1)}
              inputMode="numeric"
              value={quotas[name] ?? ''}
              onValue={(value) => setQuotas({ ...quotas, [name]: value })}
            />
          ))}
        </div>
      </fieldset>
      <FormError error={formError ?? error} />
      <div class="form-actions">
        <button type="button" class="button secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
