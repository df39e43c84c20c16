/**
 * What the origin proxy and the forward-auth checks do with a request, beside its access token:
 * the queue's path rules (bypass, queue, route to another queue), the room switch (a closed room,
 * a passthrough room) and the store-failure policy (`STORE_FAILURE=open` lets visitors without a
 * token through while the store cannot be reached). One decision for both, so the proxy and the
 * checks behind nginx, Caddy and Traefik cannot disagree.
 *
 * A store read here that fails falls back to what this instance last knew (no rules, the
 * default queue, a normal room); under the open policy it is also bounded in time (a store
 * that hangs is down).
 */
import type { Services } from "./services.ts";
import type { AccessClaims } from "../lib/tokens.ts";
import { matchRules, NO_RULES } from "../lib/paths/rules.ts";
import type { RoomSwitchState } from "../lib/room/switches.ts";
import { instanceMetrics } from "../lib/metrics/instance.ts";

/** What to do with a request. */
export type PolicyDecision =
  /** Let it through (a token for the right queue, a bypass rule, the allowlist, a failed store). */
  | { kind: "pass"; queue: string; claims: AccessClaims | null; why: PassReason }
  /** A passthrough room: let it through and admit it (the caller mints and counts the token). */
  | { kind: "passthrough"; queue: string }
  /** A closed room (`reject`): the closed page, or 503 with Retry-After. */
  | { kind: "closed"; queue: string; room: RoomSwitchState }
  /** Not admitted: to the waiting room of `queue` (`named`: the link must say which). */
  | { kind: "wait"; queue: string; named: boolean };

/** Why a request passes (the `X-Tollgate-Pass` header of the checks names it). */
export type PassReason = "token" | "bypass" | "allowlist" | "store_unreachable";

/** The request as the policy sees it. */
export interface PolicyRequest {
  path: string;
  query: string;
  ip: string;
  /** The claims of a valid access token for `queue` (any queue when undefined), or null. */
  claims: (queue: string | undefined) => Promise<AccessClaims | null>;
  /** The queue the caller named (`/verify?queue=`); otherwise the default queue. */
  queue?: string;
  /** Whether the caller asks for the allowlist (the origin proxy does; the checks do not). */
  allowlisted?: () => Promise<boolean>;
  where: "proxy" | "verify";
}

/** The policy over `s`. */
export function trafficPolicy(s: Services) {
  const open = s.config.STORE_FAILURE === "open";
  /** `p`, or `fallback()` when it fails; under the open policy also when it takes too long. */
  const soft = <T>(p: Promise<T>, fallback: () => T): Promise<T> =>
    (open ? s.storeFailure.bounded(p) : p).catch(fallback);

  // The default queue, looked up at most once a second: the admitted hot path (every request to
  // the site behind a proxy) then makes no store read and starts no timer for it.
  let dflt: { name: string; at: number } | null = null;
  const defaultQueue = async () => {
    const now = s.clock.now();
    if (dflt && now - dflt.at < 1000 && now >= dflt.at) return dflt.name;
    const name = await soft(s.engine.defaultQueue(), () => dflt?.name ?? null) ?? "default";
    dflt = { name, at: now };
    return name;
  };

  return async (r: PolicyRequest): Promise<PolicyDecision> => {
    const own = r.queue ?? await defaultQueue();
    const rules = s.paths.fresh(own) ??
      await soft(s.paths.current(own), () => s.paths.lastKnown(own) ?? NO_RULES);
    const hit = matchRules(rules, r);
    // `/robots.txt` reaches the site unless a rule says otherwise: queued, every crawler's fetch
    // took a place in line and read the waiting page as the site's robots rules.
    const robots = !hit && r.path === "/robots.txt";
    if (hit?.action === "bypass" || robots) {
      return { kind: "pass", queue: own, claims: null, why: "bypass" };
    }
    const queue = hit?.action === "route" ? hit.queue! : own;
    // A routed path needs its own queue's token; elsewhere the caller's queue's. When it named
    // none: the queue's own once its rules route a part of the site elsewhere (a `tickets` token
    // opened the rest of the site, past its line), else any queue's, as before.
    const split = rules.rules.some((x) => x.action === "route");
    const claims = await r.claims(
      hit?.action === "route" ? queue : r.queue ?? (split ? own : undefined),
    );
    if (claims) return { kind: "pass", queue, claims, why: "token" };
    if (r.allowlisted && await soft(r.allowlisted(), () => false)) {
      return { kind: "pass", queue, claims: null, why: "allowlist" };
    }
    const room = s.rooms.modeNow(queue) !== null
      ? await s.rooms.current(queue)
      : await soft<RoomSwitchState | null>(s.rooms.current(queue), () => s.rooms.lastKnown(queue));
    if (room?.effective === "reject") {
      instanceMetrics.roomAdmissions.inc([queue, "reject"]);
      return { kind: "closed", queue, room };
    }
    if (room?.effective === "passthrough") return { kind: "passthrough", queue };
    if (await s.storeFailure.verdict(r.where) === "open") {
      return { kind: "pass", queue, claims: null, why: "store_unreachable" };
    }
    return { kind: "wait", queue, named: queue !== own || r.queue !== undefined };
  };
}
