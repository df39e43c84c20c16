/// <reference lib="dom" />
/** Placeholder: the Branding tab (being written). */
import type { TabProps } from "../boot.ts";

export function BrandingTab(_: TabProps) {
  return <p>The Branding tab is being built.</p>;
}
