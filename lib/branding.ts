import { z } from "@hono/zod-openapi";
import { isHttpsUrl, isSameOriginPath, safeRedirectUrl } from "./destination.ts";
import { retryCommit } from "./store/commit.ts";
import { keys } from "./store/keys.ts";
import { withDefaults } from "./queue/types.ts";
import { MESSAGE_KEYS, type MessageOverrides, unknownMarks } from "./i18n/catalogues.ts";
import { en, type MessageKey } from "./i18n/messages/en.ts";
import { type Lang, LANGS } from "./i18n/langs.ts";

/** Service-wide branding (one record; a queue may override its fields). */
export interface Branding {
  title: string;
  message: string;
  logoUrl: string;
  primaryColor: string;
  backgroundColor: string;
  showWaitingCount: boolean;
  clickToEnter: boolean;
  admitHoldSeconds: number;
  redirectUrl: string;
  /** The operator's wording of visitor messages, per language and key (over the catalogues). */
  messages: MessageOverrides;
}

/** The branding of a service nobody has branded yet. */
export const DEFAULT_BRANDING: Branding = {
  title: "You're in line",
  message: "Thanks for your patience. We'll let you in as soon as there's room.",
  logoUrl: "",
  primaryColor: "#2563eb",
  backgroundColor: "#f8fafc",
  showWaitingCount: false,
  clickToEnter: false,
  admitHoldSeconds: 60,
  redirectUrl: "",
  messages: {},
};

/** `#rgb` or `#rrggbb`: the only colours a page will ever put into CSS. */
export const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

const linkOrEmpty = (what: string) =>
  z.string().max(2048).refine((v) => v === "" || isSameOriginPath(v) || isHttpsUrl(v), {
    message: `${what} must be empty, a same-origin path (/...) or an https:// URL`,
  });
const color = z.string().regex(COLOR, { message: "must be a colour like #2563eb or #fff" });

/** Most characters of operator wording one branding record keeps (as JSON). */
export const MAX_MESSAGES_CHARS = 24_000;

/** The operator's wording: per language, per message key, a text (blank: the catalogue's). */
const MessageOverridesInput = z.record(
  z.string(),
  z.record(z.string(), z.string().trim().max(1000)),
)
  .superRefine((v, ctx) => {
    // The branding record is one KV value (64 KiB at most), the other fields included.
    if (JSON.stringify(v).length > MAX_MESSAGES_CHARS) {
      ctx.addIssue({
        code: "custom",
        path: [],
        message: `messages: at most ${MAX_MESSAGES_CHARS} characters of wording in all`,
      });
    }
    const known = new Set<string>(MESSAGE_KEYS);
    for (const [lang, texts] of Object.entries(v)) {
      if (!(LANGS as readonly string[]).includes(lang)) {
        ctx.addIssue({
          code: "custom",
          path: [lang],
          message: `messages: unknown language "${lang}" (one of ${LANGS.join(", ")})`,
        });
      }
      for (const [key, text] of Object.entries(texts)) {
        if (!known.has(key)) {
          ctx.addIssue({
            code: "custom",
            path: [lang, key],
            message: `messages: unknown message key "${key}"`,
          });
          continue;
        }
        const unknown = unknownMarks(key as MessageKey, text);
        if (unknown.length) {
          const has = en[key as MessageKey].match(/\{\w+\}/g)?.join(", ") || "none";
          ctx.addIssue({
            code: "custom",
            path: [lang, key],
            message: `messages: ${
              unknown.map((n) => `{${n}}`).join(", ")
            } is not a value of "${key}" (its values: ${has})`,
          });
        }
      }
    }
  })
  .openapi({
    description: "visitor messages in the operator's words, per language and message key, e.g. " +
      '{"de": {"page.title": "Sie sind dran"}}; languages and keys as in lib/i18n (English\'s ' +
      "catalogue lists every key); a blank text falls back to the catalogue; a text may leave out " +
      "its message's {values} but not name another",
  });

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
  messages: MessageOverridesInput,
}).partial().strict();

/**
 * A queue's overrides: a field set to a value replaces the service-wide one for that queue; null
 * means "inherit" (the override is removed); a left-out field keeps what is stored.
 */
export const BrandingOverrideInput = z.object({
  title: BrandingInput.shape.title.unwrap().nullable(),
  message: BrandingInput.shape.message.unwrap().nullable(),
  logoUrl: BrandingInput.shape.logoUrl.unwrap().nullable(),
  primaryColor: BrandingInput.shape.primaryColor.unwrap().nullable(),
  backgroundColor: BrandingInput.shape.backgroundColor.unwrap().nullable(),
  showWaitingCount: BrandingInput.shape.showWaitingCount.unwrap().nullable(),
  clickToEnter: BrandingInput.shape.clickToEnter.unwrap().nullable(),
  admitHoldSeconds: BrandingInput.shape.admitHoldSeconds.unwrap().nullable(),
  redirectUrl: BrandingInput.shape.redirectUrl.unwrap().nullable(),
  messages: BrandingInput.shape.messages.unwrap().nullable(),
}).partial().strict();

/** The fields a queue may override (every branding field). */
export const BRANDING_FIELDS = Object.keys(DEFAULT_BRANDING) as (keyof Branding)[];

/**
 * The branding a queue's visitors see: the stored service-wide record merged softly with the
 * defaults, then the queue's own overrides field by field. Without `queue`, the
 * service-wide record.
 */
export async function readBranding(kv: Deno.Kv, queue?: string): Promise<Branding> {
  if (!queue) {
    return withDefaults(DEFAULT_BRANDING, (await kv.get<Partial<Branding>>(keys.branding())).value);
  }
  const [svc, own] = await kv.getMany<[Partial<Branding>, Partial<Branding>]>([
    keys.branding(),
    keys.queueBranding(queue),
  ]);
  const base = withDefaults(DEFAULT_BRANDING, svc.value);
  const out = { ...base, ...pickFields(own.value) };
  // Wording merges per language and key: a queue's own texts win, the service-wide rest stays.
  if (own.value?.messages) out.messages = mergeMessages(base.messages, own.value.messages);
  return out;
}

/** `over`'s texts laid over `under`'s, language by language, key by key. */
function mergeMessages(under: MessageOverrides, over: MessageOverrides): MessageOverrides {
  const out: MessageOverrides = { ...under };
  for (const [lang, texts] of Object.entries(over) as [Lang, MessageOverrides[Lang]][]) {
    out[lang] = { ...under[lang], ...texts };
  }
  return out;
}

/** Only known branding fields (a record from another version may carry others). */
function pickFields(o: Partial<Branding> | null): Partial<Branding> {
  const out: Record<string, unknown> = {};
  for (const k of BRANDING_FIELDS) if (o && o[k] !== undefined) out[k] = o[k];
  return out as Partial<Branding>;
}

/** A queue's own overrides (the fields it does not inherit). */
export async function readQueueBranding(kv: Deno.Kv, queue: string): Promise<Partial<Branding>> {
  return pickFields((await kv.get<Partial<Branding>>(keys.queueBranding(queue))).value);
}

/** Applies a queue's override write (null = inherit) with a checked commit; returns them. */
export function saveQueueBranding(
  kv: Deno.Kv,
  queue: string,
  patch: { [K in keyof Branding]?: Branding[K] | null },
): Promise<Partial<Branding>> {
  return retryCommit(async () => {
    const cur = await kv.get<Partial<Branding>>(keys.queueBranding(queue));
    const next: Record<string, unknown> = { ...pickFields(cur.value) };
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) delete next[k];
      else if (v !== undefined) next[k] = v;
    }
    const op = kv.atomic().check(cur);
    if (Object.keys(next).length) op.set(keys.queueBranding(queue), next);
    else op.delete(keys.queueBranding(queue));
    return (await op.commit()).ok ? next as Partial<Branding> : null;
  }, "save queue branding");
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

/**
 * The unsaved branding a preview shows (the admin's form as typed), as JSON text: each valid
 * field is kept, an invalid one is left out (the saved value shows), anything else is ignored.
 */
export function parseBrandingDraft(text: string | undefined): Partial<Branding> {
  if (!text || text.length > 8192) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return {};
  }
  if (!raw || typeof raw !== "object") return {};
  const out: Record<string, unknown> = {};
  for (const k of BRANDING_FIELDS) {
    const field = BrandingInput.shape[k].safeParse((raw as Record<string, unknown>)[k]);
    if (field.success && field.data !== undefined) out[k] = field.data;
  }
  return out as Partial<Branding>;
}
