/// <reference lib="dom" />
/**
 * Keeps a keyboard or screen-reader user's place across an action: Chromium drops focus to the
 * page when the focused button is disabled (as every button is while its action runs) or removed,
 * and Tab would then start again at the top of the page.
 */

/**
 * Notes what has focus now; the function it gives puts focus back there once the page has
 * rendered, when focus fell to the page meanwhile: a button disabled while its action ran loses
 * focus, and a keyboard or screen-reader user would be sent back to the top of the page after
 * every save. A button its action removed (a row deleted) gives way to its card's heading.
 */
export function keepFocus(): () => void {
  const el = document.activeElement;
  const heading = el?.closest("section")?.querySelector<HTMLElement>("h2[tabindex]");
  return () =>
    setTimeout(() => {
      const lost = !document.activeElement || document.activeElement === document.body;
      if (!lost) return;
      if (el instanceof HTMLElement && el.isConnected) el.focus();
      else if (heading?.isConnected) heading.focus();
    }, 0);
}
