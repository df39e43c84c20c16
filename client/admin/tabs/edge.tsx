/// <reference lib="dom" />
/** Placeholder: the Edge tab (being written). */
import type { TabProps } from "../boot.ts";

export function EdgeTab(_: TabProps) {
  return <p>The Edge tab is being built.</p>;
}
