import type { ComponentChildren, PartialInputHTMLAttributes } from 'preact';
import { useId } from 'preact/hooks';

interface FieldProps {
  readonly label: ComponentChildren;
  readonly hint?: ComponentChildren;
  /** Renders the control with the id its label points at and the id of its hint. */
  readonly children: (id: string, hintId: string | undefined) => ComponentChildren;
  readonly class?: string;
}

/** A labelled form control with an optional hint read with it. */
export function Field({ label, hint, children, class: className }: FieldProps) {
  const id = useId();
  const hintId = hint === undefined ? undefined : `${id}-hint`;
  return (
    <div class={className === undefined ? 'field' : `field ${className}`}>
      <label for={id}>{label}</label>
      {children(id, hintId)}
      {hint !== undefined && (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}

type InputProps = Omit<
  PartialInputHTMLAttributes<HTMLInputElement>,
  'label' | 'value' | 'onInput' | 'role'
> & {
  readonly label: ComponentChildren;
  readonly hint?: ComponentChildren;
  readonly value: string;
  readonly onValue: (value: string) => void;
};

/** A labelled text input. */
export function TextInput({ label, hint, value, onValue, ...rest }: InputProps) {
  return (
    <Field label={label} hint={hint}>
      {(id, hintId) => (
        <input
          // Preact types an input's props as one union per `type`, which a pass-through cannot name.
          {...(rest as Record<string, unknown>)}
          id={id}
          aria-describedby={hintId}
          value={value}
          onInput={(event) => onValue(event.currentTarget.value)}
        />
      )}
    </Field>
  );
}

interface SelectProps {
  readonly label: ComponentChildren;
  readonly hint?: ComponentChildren;
  readonly value: string;
  readonly onValue: (value: string) => void;
  readonly options: ReadonlyArray<readonly [value: string, label: string]>;
  readonly name?: string;
}

/** A labelled select. */
export function SelectInput({ label, hint, value, onValue, options, name }: SelectProps) {
  return (
    <Field label={label} hint={hint}>
      {(id, hintId) => (
        <select
          id={id}
          name={name}
          aria-describedby={hintId}
          value={value}
          onChange={(event) => onValue(event.currentTarget.value)}
        >
          {options.map(([optionValue, optionLabel]) => (
            <option key={optionValue} value={optionValue}>
              {optionLabel}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** A labelled checkbox, the box before its label. */
export function Checkbox({
  label,
  checked,
  onChecked,
}: {
  readonly label: ComponentChildren;
  readonly checked: boolean;
  readonly onChecked: (checked: boolean) => void;
}) {
  return (
    <label class="checkbox">
      <input type="checkbox" checked={checked} onChange={(event) => onChecked(event.currentTarget.checked)} />
      <span>{label}</span>
    </label>
  );
}

/** A form's error, announced when it appears. */
export function FormError({ error }: { readonly error: string | null }) {
  if (error === null) return null;
  return (
    <p class="form-error" role="alert">
      {error}
    </p>
  );
}
