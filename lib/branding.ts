import { z } from "@hono/zod-openapi";
import { isHttpsUrl, isSameOriginPath, safeRedirectUrl } from "./destination.ts";
import { retryCommit } from "./store/commit.ts";
import { keys } from "./store/keys.ts";
import { type Branding, DEFAULT_BRANDING, withDefaults } from "./queue/types.ts";

/** `#rgb` or `#rrggbb`: the only colours a page will ever put into CSS. */
export const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

const linkOrEmpty = (what: string) =>
  z.string().max(2048).refine((v) => v === "" || isSameOriginPath(v) || isHttpsUrl(v), {
    message: `${what} must be empty, a same-origin path (/...) or an https:// URL`,
  });
const color = z.string().regex(COLOR, { message: "must be a colour like #2563eb or #fff" });

/** A branding write: every field optional, left-out fields keep their stored value. */
export const BrandingInput = z.object({
  title: z.string().trim().max(120),
  message: z.string().trim().max(2000),
  logoUrl: linkOrEmpty("logoUrl"),
  primaryColor: color,
  backgroundColor: color,
  showWaitingCount: z.boolean(),
  clickToEnter: z.boolean(),
  admitHoldSeconds: z.number().int().min(10).max(3600),
  // Checked by the rule visitors are sent by, so a saved redirect is never silently ignored.
  redirectUrl: z.string().max(2048).refine((v) => v === "" || safeRedirectUrl(v) !== null, {
    message: "redirectUrl must be empty, a same-origin path (/..., not /wait) or an https:// URL",
  }),
}).partial().strict();

/** The stored branding merged softly with the defaults (SPEC 9.4). */
export async function readBranding(kv: Deno.Kv): Promise<Branding> {
  return withDefaults(DEFAULT_BRANDING, (await kv.get<Partial<Branding>>(keys.branding())).value);
}

/** Applies a validated partial write with a checked commit; returns the saved record. */
export function saveBranding(kv: Deno.Kv, patch: Partial<Branding>): Promise<Branding> {
  return retryCommit(async () => {
    const cur = await kv.get<Partial<Branding>>(keys.branding());
    const next = { ...withDefaults(DEFAULT_BRANDING, cur.value), ...patch };
    const ok = (await kv.atomic().check(cur).set(keys.branding(), next).commit()).ok;
    return ok ? next : null;
  }, "save branding");
}
