/// <reference lib="dom" />
/** Placeholder: the Team tab (being written). */
import type { TabProps } from "../boot.ts";

export function TeamTab(_: TabProps) {
  return <p>The Team tab is being built.</p>;
}
