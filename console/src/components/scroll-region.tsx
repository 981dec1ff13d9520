import type { ComponentChildren } from 'preact';

/**
 * A block of text that scrolls inside its box (JSON, code): focusable so that a keyboard can
 * scroll it (WCAG 2.1.1), and named for screen readers.
 */
export function ScrollRegion({
  label,
  class: className,
  children,
}: {
  readonly label: string;
  readonly class?: string;
  readonly children: ComponentChildren;
}) {
  return (
    <section class="scroll-region" aria-label={label}>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling block must take focus to be scrolled by keyboard. */}
      <pre class={className} tabIndex={0}>
        {children}
      </pre>
    </section>
  );
}
