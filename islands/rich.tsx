/**
 * A message with elements in it (a number in bold, a link, the countdown): the catalogue's text
 * around its `{name}` marks, each mark replaced by its element, so translators can move them.
 */
import type { ComponentChildren } from "preact";
import { pieces } from "../lib/i18n/format.ts";
import type { Catalogue, MessageKey } from "../lib/i18n/messages/en.ts";

/** The message `key` with each `{name}` replaced by `parts[name]`. */
export function rich(
  m: Catalogue,
  key: MessageKey,
  parts: Record<string, ComponentChildren>,
): ComponentChildren[] {
  const { text, names } = pieces(m, key);
  const out: ComponentChildren[] = [];
  text.forEach((t, i) => {
    if (t) out.push(t);
    if (i < names.length) out.push(parts[names[i]] ?? `{${names[i]}}`);
  });
  return out;
}
