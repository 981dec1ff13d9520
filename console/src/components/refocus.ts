/**
 * After an action that disabled or removed the control that had focus (a row's Cancel or
 * Withdraw), focus is on the body and a keyboard user would start again from the top: once the
 * view has drawn its new state, `find`'s element takes focus instead. Focus put anywhere else
 * meanwhile (by the user) is left alone.
 */
export function refocusIfLost(find: () => HTMLElement | null): void {
  requestAnimationFrame(() => {
    if (document.activeElement !== null && document.activeElement !== document.body) return;
    find()?.focus();
  });
}
