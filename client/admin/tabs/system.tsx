/// <reference lib="dom" />
/** Placeholder: the System tab (being written). */
import type { TabProps } from "../boot.ts";

export function SystemTab(_: TabProps) {
  return <p>The System tab is being built.</p>;
}
