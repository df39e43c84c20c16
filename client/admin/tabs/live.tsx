/// <reference lib="dom" />
/** Placeholder: the Live tab (being written). */
import type { TabProps } from "../boot.ts";

export function LiveTab(_: TabProps) {
  return <p>The Live tab is being built.</p>;
}
