/** The services every route shares, as `createApp` wires them. */
import type { Context } from "hono";
import type { Access } from "../lib/access/mod.ts";
import type { Crawlers } from "../lib/crawlers/mod.ts";
import type { JoinGuards } from "../lib/guard/mod.ts";
import type { OriginSettings } from "../lib/origin/settings.ts";
import type { PathRuleSets } from "../lib/paths/store.ts";
import type { RoomSwitches } from "../lib/room/switches.ts";
import type { StoreFailure } from "../lib/store/failure.ts";
import type { HeldEngine } from "../lib/resume/held_engine.ts";
import type { MailService } from "../lib/notify/service.ts";
import type { AppDeps, ChallengeGate, EventSink } from "../lib/services.ts";
import type { SessionKeeper } from "../lib/session/keeper.ts";
import type { Signer } from "../lib/tokens.ts";
import type { Webhooks } from "../lib/webhooks.ts";

export type { AppDeps, ChallengeGate, EventSink };

/** The services the routes share. */
export interface Services extends AppDeps {
  /** The admission engine, behind the holder check of places moved to another device. */
  engine: HeldEngine;
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
  /** Visitor sessions: fixed or sliding, renewal, release (lib/session). */
  sessions: SessionKeeper;
  /** Room switches per queue (normal, queue_all, passthrough, reject, auto) and the Safety Net. */
  rooms: RoomSwitches;
  /** Path rules per queue (bypass, queue, route to another queue). */
  paths: PathRuleSets;
  /** What the origin proxy and `/verify` do while the store cannot be reached (STORE_FAILURE). */
  storeFailure: StoreFailure;
  /** The e-mail at a visitor's turn (lib/notify/): offered when an SMTP server is set. */
  mail: MailService;
  /** The per-second mail job (lib/notify/mail_job.ts); main.ts calls it beside the admission tick. */
  mailJob: () => Promise<void>;
  /** Search engine crawlers: verification by DNS and each queue's rules for them. */
  crawlers: Crawlers;
}
