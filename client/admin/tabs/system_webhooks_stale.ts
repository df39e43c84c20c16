/// <reference lib="dom" />
/**
 * The webhook form's save over settings another tab or admin may have saved since the form was
 * loaded: the settings are one record written whole, so a field left alone here must not put
 * back this form's stale copy of it (the rule is stale.ts's).
 */
import { api } from "../api.ts";
import { confirmReplace, savedElsewhere } from "../stale.ts";

/** The webhook settings as `GET /api/admin/webhooks` answers them (the fields a save writes). */
interface WebhookFields {
  enabled: boolean;
  url: string;
  events: string[];
  depthThreshold: number;
}

/** The webhook fields a save writes, and their labels. */
const WH_FIELDS = { enabled: "Send webhooks", url: "Receiver URL", events: "Events" } as const;

/**
 * Reads the stored settings before a save (stale.ts): a field saved elsewhere since `view` was
 * loaded and left alone here is taken into `mine`; one changed on both sides is asked about.
 */
export async function keepSavedElsewhere(
  view: WebhookFields,
  mine: { enabled: boolean; url: string; events: string[]; depth: string },
) {
  const stored = await api<WebhookFields>("GET", "/api/admin/webhooks");
  const depth = (w: WebhookFields) => String(w.depthThreshold);
  type K = keyof typeof WH_FIELDS | "depth";
  const read = (w: WebhookFields) => (k: K) => k === "depth" ? depth(w) : w[k];
  const { kept, clash } = savedElsewhere<K>(
    ["enabled", "url", "events", "depth"],
    read(view),
    read(stored),
    (k) => mine[k],
  );
  await confirmReplace(clash.map((k) => k === "depth" ? "Depth threshold" : WH_FIELDS[k]));
  for (const k of kept) {
    if (k === "depth") mine.depth = depth(stored);
    else if (k === "enabled") mine.enabled = stored.enabled;
    else if (k === "url") mine.url = stored.url;
    else mine.events = stored.events;
  }
}
