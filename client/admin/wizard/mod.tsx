/// <reference lib="dom" />
/** Placeholder: the five-step setup wizard (being written). */
import type { ScreenProps } from "../boot.ts";

export function Wizard(_: ScreenProps) {
  return <p>The setup wizard is being built.</p>;
}
