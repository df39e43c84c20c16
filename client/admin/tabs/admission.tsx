/// <reference lib="dom" />
/** Placeholder: the Admission tab (being written). */
import type { TabProps } from "../boot.ts";

export function AdmissionTab(_: TabProps) {
  return <p>The Admission tab is being built.</p>;
}
