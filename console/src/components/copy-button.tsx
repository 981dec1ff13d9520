import { useState } from 'preact/hooks';

/** Copies `text` to the clipboard and says so; where the clipboard is refused, says to copy by hand. */
export function CopyButton({ text, label = 'Copy' }: { readonly text: string; readonly label?: string }) {
  const [said, setSaid] = useState<string | null>(null);
  return (
    <span class="copy">
      <button
        type="button"
        class="button secondary small"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setSaid('Copied');
          } catch {
            setSaid('Select the text and copy it');
          }
        }}
      >
        {label}
      </button>
      <span class="copy-said" role="status" aria-live="polite">
        {said}
      </span>
    </span>
  );
}
