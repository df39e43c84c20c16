/// <reference lib="dom" />
/** Placeholder: the Access tab (being written). */
import type { TabProps } from "../boot.ts";

export function AccessTab(_: TabProps) {
  return <p>The Access tab is being built.</p>;
}
