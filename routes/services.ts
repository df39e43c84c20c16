/** The services every route shares, as `createApp` wires them. */
import type { Context } from "hono";
import type { Access } from "../lib/access/mod.ts";
import type { Crawlers } from "../lib/crawlers/mod.ts";
import type { JoinGuards } from "../lib/guard/mod.ts";
import type { OriginSettings } from "../lib/origin/settings.ts";
import type { Engine } from "../lib/queue/engine.ts";
import type { AppDeps, ChallengeGate, EventSink } from "../lib/services.ts";
import type { Signer } from "../lib/tokens.ts";
import type { Webhooks } from "../lib/webhooks.ts";

export type { AppDeps, ChallengeGate, EventSink };

/** The services the routes share. */
export interface Services extends AppDeps {
  engine: Engine;
  signer: Signer;
  events: EventSink;
  /** The webhook sender behind `events` (the admin test delivery uses it directly). */
  webhooks: Webhooks;
  /** True when the request carries a valid admin session (operator endpoints accept it). */
  isAdminSession(c: Context): Promise<boolean>;
  challenge: ChallengeGate;
  /** IP allowlist, country block and origin health throttle. */
  access: Access;
  /** The origin proxy setting: ORIGIN_URL and the admin override, cached about a second. */
  origin: OriginSettings;
  /** Join guards: bot challenge (proof of work, Turnstile), enqueue tokens, their counts. */
  guards: JoinGuards;
  /** Search engine crawlers: verification by DNS and each queue's rules for them. */
  crawlers: Crawlers;
}
