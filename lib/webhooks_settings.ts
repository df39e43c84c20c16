/**
 * Webhook settings: stored at `keys.webhooks()` with the signing secret sealed by
 * `TOKEN_SECRET`; every read handed out is the public view, which never carries the secret.
 */
import { BadRequestError } from "./errors.ts";
import { seal, unseal } from "./seal.ts";
import { keys } from "./store/keys.ts";

/** The events an operator can subscribe to. */
export const WEBHOOK_EVENTS = ["pause", "health", "depth"] as const;
/** One subscribable event. */
export type WebhookEvent = typeof WEBHOOK_EVENTS[number];
/** `purpose` of the sealed signing secret (its own HKDF key). */
export const WEBHOOK_SECRET_PURPOSE = "webhook-signing-secret";
/** Depth threshold when none is set. */
export const DEFAULT_DEPTH_THRESHOLD = 100;

/** The stored record. */
export interface WebhookSettings {
  enabled: boolean;
  url: string;
  events: WebhookEvent[];
  sealedSecret?: string;
  depthThreshold: number;
}

/** What the API returns: the settings without the secret. */
export interface WebhookSettingsView {
  enabled: boolean;
  url: string;
  events: WebhookEvent[];
  depthThreshold: number;
  /** A signing secret is stored (and, when checked with TOKEN_SECRET, still readable). */
  hasSecret: boolean;
  /** A secret is stored but TOKEN_SECRET was rotated since: set it again. */
  secretUnreadable?: boolean;
}

/**
 * A settings write; `secret`: a string sets, null clears, undefined keeps; an undefined
 * `depthThreshold` keeps the stored one too.
 */
export interface WebhookSettingsInput {
  enabled: boolean;
  url: string;
  events: WebhookEvent[];
  secret?: string | null;
  depthThreshold?: number;
}

/** Settings before anything was saved. */
export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  enabled: false,
  url: "",
  events: [...WEBHOOK_EVENTS],
  depthThreshold: DEFAULT_DEPTH_THRESHOLD,
};

/** The stored settings merged softly with the defaults (additive changes keep old records valid). */
export async function loadWebhookSettings(kv: Deno.Kv): Promise<WebhookSettings> {
  return mergeWebhookSettings((await kv.get<Partial<WebhookSettings>>(keys.webhooks())).value);
}

/** A stored record (or null) completed with the defaults. */
export function mergeWebhookSettings(raw: Partial<WebhookSettings> | null): WebhookSettings {
  return { ...DEFAULT_WEBHOOK_SETTINGS, ...(raw ?? {}) };
}

/** The public view; `hasSecret` is true only while the stored secret unseals with `tokenSecret`. */
export async function readWebhookSettings(
  kv: Deno.Kv,
  tokenSecret: string,
): Promise<WebhookSettingsView> {
  return await publicView(await loadWebhookSettings(kv), tokenSecret);
}

/** Strips the sealed secret from a record, flagging one `tokenSecret` can no longer unseal. */
export async function publicView(
  s: WebhookSettings,
  tokenSecret: string,
): Promise<WebhookSettingsView> {
  const view: WebhookSettingsView = {
    enabled: s.enabled,
    url: s.url,
    events: s.events,
    depthThreshold: s.depthThreshold,
    hasSecret: s.sealedSecret !== undefined,
  };
  if (
    s.sealedSecret !== undefined &&
    (await unseal(tokenSecret, s.sealedSecret, WEBHOOK_SECRET_PURPOSE)) === null
  ) {
    view.hasSecret = false;
    view.secretUnreadable = true;
  }
  return view;
}

/**
 * Validates and stores a settings write; returns the public view. Throws 400 `bad_request`
 * (nothing stored) for an enabled hook without URL, or when `checkTarget` (the outbound-URL
 * policy, lib/outbound/guard.ts) refuses the URL.
 */
export async function saveWebhookSettings(
  kv: Deno.Kv,
  tokenSecret: string,
  input: WebhookSettingsInput,
  checkTarget: (url: string) => Promise<void> = () => Promise.resolve(),
): Promise<WebhookSettingsView> {
  if (input.enabled && input.url === "") {
    throw new BadRequestError("url: required when webhooks are enabled", {
      fields: [{ path: "url", message: "required when enabled" }],
    });
  }
  if (input.url !== "") await checkTarget(input.url);
  const current = await loadWebhookSettings(kv);
  const next: WebhookSettings = {
    enabled: input.enabled,
    url: input.url,
    events: WEBHOOK_EVENTS.filter((e) => input.events.includes(e)),
    // Omitted keeps the stored value, like the secret (a partial form must not reset it to 100).
    depthThreshold: input.depthThreshold ?? current.depthThreshold,
  };
  if (typeof input.secret === "string") {
    next.sealedSecret = await seal(tokenSecret, input.secret, WEBHOOK_SECRET_PURPOSE);
  } else if (input.secret === undefined && current.sealedSecret !== undefined) {
    next.sealedSecret = current.sealedSecret;
  }
  // Last write wins: settings are one record edited by a human; no merge to protect.
  await kv.set(keys.webhooks(), next);
  return await publicView(next, tokenSecret);
}
