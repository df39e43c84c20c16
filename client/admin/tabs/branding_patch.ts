/// <reference lib="dom" />
/**
 * What a branding save sends: only the fields the operator changed since the form was loaded (or
 * last saved), so a save in one tab does not put back, unseen, what another tab saved meanwhile
 * in other fields. A field changed here AND elsewhere since is named, and replaced only when the
 * operator says so (stale.ts).
 */
import type { Branding } from "../../../lib/branding.ts";
import { api } from "../api.ts";
import { confirmReplace, sameValue, savedElsewhere } from "../stale.ts";

type Key = keyof Branding;

/** One state of a branding form: its values and the fields a queue inherits (service-wide: none). */
export interface BrandingSide {
  values: Branding;
  inherited: ReadonlySet<Key>;
}

const sideOf = (s: BrandingSide, k: Key) => s.inherited.has(k) ? "inherit" : s.values[k];

/** The fields of `mine` that differ from `base`: another value, or another inherit choice. */
export function changedFields(mine: BrandingSide, base: BrandingSide): Key[] {
  return (Object.keys(mine.values) as Key[]).filter((k) =>
    !sameValue(sideOf(mine, k), sideOf(base, k))
  );
}

/** A queue's branding as `GET /api/admin/branding?queue=` answers it. */
export interface QueueBranding {
  queue: string;
  service: Branding;
  overrides: Partial<Branding>;
  effective: Branding;
}

/** The fields a queue inherits (not among its overrides). */
export const inheritedOf = (q: QueueBranding): Set<Key> =>
  new Set((Object.keys(q.effective) as Key[]).filter((k) => !(k in q.overrides)));

/** The branding stored now, as a form side: service-wide, or `queue`'s (effective, inherited). */
async function storedSide(queue: string | undefined): Promise<BrandingSide> {
  if (!queue) {
    return { values: await api<Branding>("GET", "/api/admin/branding"), inherited: new Set() };
  }
  const q = await api<QueueBranding>(
    "GET",
    `/api/admin/branding?queue=${encodeURIComponent(queue)}`,
  );
  return { values: q.effective, inherited: inheritedOf(q) };
}

/**
 * Saves the fields changed since `base` (see the file header): service-wide, or as the queue's
 * overrides (an inherited field sent as null, so it follows the service-wide value). A field
 * saved elsewhere meanwhile is replaced only when the operator confirms. Returns the branding
 * now stored, or null when no field changed.
 */
export async function putBranding(
  queue: string | undefined,
  mine: BrandingSide,
  base: BrandingSide,
  labels: Record<Key, string>,
): Promise<BrandingSide | null> {
  const keys = changedFields(mine, base);
  if (!keys.length) return null;
  const stored = await storedSide(queue);
  const { clash } = savedElsewhere(
    keys,
    (k) => sideOf(base, k),
    (k) => sideOf(stored, k),
    (k) => sideOf(mine, k),
  );
  await confirmReplace(clash.map((k) => labels[k]));
  const body: Record<string, unknown> = queue ? { queue } : {};
  for (const k of keys) body[k] = mine.inherited.has(k) ? null : mine.values[k];
  if (!queue) {
    return {
      values: await api<Branding>("PUT", "/api/admin/branding", body),
      inherited: new Set(),
    };
  }
  const q = await api<QueueBranding>("PUT", "/api/admin/branding", body);
  return { values: q.effective, inherited: inheritedOf(q) };
}
