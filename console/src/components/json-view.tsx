import { CopyButton } from './copy-button.tsx';
import { ScrollRegion } from './scroll-region.tsx';

/** JSON, indented, in a scrollable block with a copy button. Long strings (base64) are cut for display only. */
export function JsonView({ value, label }: { readonly value: unknown; readonly label: string }) {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  const shown = JSON.stringify(
    value,
    (_key, item: unknown) =>
      typeof item === 'string' && item.length > 2000
        ? `${item.slice(0, 2000)}… (${item.length} characters)`
        : item,
    2,
  );
  return (
    <div class="json-view">
      <div class="json-head">
        <span class="muted">{label}</span>
        <CopyButton text={text} label="Copy JSON" />
      </div>
      <ScrollRegion label={label}>{shown}</ScrollRegion>
    </div>
  );
}
