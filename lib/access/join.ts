/**
 * The access rules on the join path (`POST /join`, its fast path, and `/wait`): an allowlisted
 * client IP is admitted at once without a place or slot; a visitor from a blocked country is
 * refused with 403 `geo_blocked`; everyone else joins the queue as usual.
 */
import { redeemCode } from "../priority/codes.ts";
import { clientIp, type ClientIpConfig, clientKey, trustedHeader } from "../client_ip.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { ForbiddenError, RateLimitedError, UnauthorizedError } from "../errors.ts";
import type { JoinGuards } from "../guard/mod.ts";
import type { Engine } from "../queue/engine.ts";
import { type JoinOutcome, newVisitorId } from "../queue/join.ts";
import { observeJoin } from "../metrics/spans.ts";
import { keys } from "../store/keys.ts";
import type { Signer, TicketClaims } from "../tokens.ts";
import { visitorCountry } from "./countries.ts";
import type { HitCounter } from "./hits.ts";
import type { RulesCache } from "./rules.ts";
import type { ClientJoinLimiter } from "./client_limit.ts";
import { countRefusal } from "./refusals.ts";
import { ChallengeFailedError } from "../challenge/errors.ts";
import type { JoinGuardSettings } from "../guard/settings.ts";
import { RoomClosedError } from "../room/closed.ts";
import { countPassthrough, holdsPassthrough } from "../room/passthrough.ts";
import type { RoomSwitches } from "../room/switches.ts";

/** Who is asking: the client IP (`CLIENT_IP_HEADER` or the socket) and the edge's country. */
export interface Requester {
  ip: string;
  /** Upper-case ISO code; null when the header is missing, untrusted, `XX` or `T1`. */
  country: string | null;
}

type IpConfig = ClientIpConfig & Pick<Config, "GEO_COUNTRY_HEADER">;

/**
 * The requester of a request, from its headers and connection info, under the trusted-proxy
 * rule (`lib/client_ip.ts`): the country header counts only from a trusted peer.
 */
export function requesterOf(
  headers: Headers,
  info: Deno.ServeHandlerInfo | undefined | null,
  config: IpConfig,
): Requester {
  return {
    ip: clientIp(headers, info, config),
    country: visitorCountry(trustedHeader(headers, info, config.GEO_COUNTRY_HEADER, config)),
  };
}

/** The HTTP status of a join's answer: 200 admitted, 202 waiting. */
export function joinStatus(view: { status: string }): 200 | 202 {
  return view.status === "admitted" ? 200 : 202;
}

/** What the access-aware join needs from the services. */
export interface AccessJoinDeps {
  engine: Engine;
  signer: Signer;
  clock: Clock;
  config: Config;
  access: { rules: RulesCache; hits: HitCounter; clientLimit: ClientJoinLimiter };
  guards: Pick<JoinGuards, "check" | "stats">;
  /** Room switches: a closed room refuses, a passthrough room admits at once (lib/room/). */
  rooms: Pick<RoomSwitches, "current" | "maybeStep">;
  kv: Deno.Kv;
}

/** What a join may carry for its queue's guards (fields of the join body; `/wait`'s link). */
export interface JoinProofs {
  /** A proof-of-work solution: `{challenge, nonce}`. */
  proof?: unknown;
  turnstileResponse?: string;
  enqueueToken?: string;
  /** A priority code (lib/priority/codes.ts): the new place goes into the code's lane. */
  priorityCode?: string;
}

/** 429 `rate_limited` for a client that took too many new places in a queue. */
export class ClientLimitError extends RateLimitedError {
  constructor(retryAfterSeconds: number, perMinute: number) {
    super(
      retryAfterSeconds,
      `too many new places from your address (at most ${perMinute} a minute); try again in ${retryAfterSeconds} s`,
      { reason: "client_limit", limitPerMinute: perMinute },
    );
  }
}

/** The 403 a visitor from a blocked country gets (the page shows its message). */
export function geoBlockedError(): ForbiddenError {
  return new ForbiddenError(
    "This waiting room is not available in your country right now.",
    "geo_blocked",
  );
}

/**
 * Joins `q` under the access rules, then its join guards (bot challenge, enqueue token). The
 * allowlist wins over the country block and the guards: an operator who lists an address means
 * it, wherever the edge places it.
 */
export function joinWithAccess(...args: Parameters<typeof joinUnderRules>): Promise<JoinOutcome> {
  // One span per join; a refusal thrown below counts by its cause (`observeJoin`). The
  // parameters are `joinUnderRules`'s own, so the two cannot drift apart.
  return observeJoin(args[1], () => joinUnderRules(...args));
}

async function joinUnderRules(
  s: AccessJoinDeps,
  q: string,
  ticket: TicketClaims | null,
  visitorId: string | undefined,
  who: Requester,
  proofs: JoinProofs = {},
): Promise<JoinOutcome> {
  const rules = await s.access.rules.current();
  if (rules.allow.matches(who.ip)) return await bypassJoin(s, q, ticket, visitorId);
  const geo = rules.geo;
  if (
    geo !== null && who.country !== null && geo.countries.has(who.country) &&
    s.clock.now() < geo.expiresAt
  ) {
    s.access.hits.add(keys.geoHits(geo.since, who.country));
    throw geoBlockedError();
  }
  // 404 unknown_queue before the room switch and any challenge.
  const settings = await s.engine.settings(q);
  // The room switch (the allowlist above wins: an operator's own addresses pass a closed room).
  void s.rooms.maybeStep(q);
  const room = await s.rooms.current(q);
  if (room.effective === "reject") {
    throw new RoomClosedError(q, room.record.closedMessage, room.record.retryAfterSeconds);
  }
  if (room.effective === "passthrough") {
    const now = s.clock.now();
    const again = holdsPassthrough(ticket, q, now, s.config.ACCESS_TOKEN_TTL_SECONDS);
    const out = await bypassJoin(s, q, ticket, visitorId);
    // Counted for the metrics and the slots it holds (summed in memory, written once a second),
    // once per visitor while its slot is held.
    if (!again) countPassthrough(s.access.hits, q, now);
    return out;
  }
  // A priority code with a place held already in the main line: the code is redeemed first (a
  // refused one changes nothing), then the place moves to the back of the code's lane. A place in
  // a lane (a page reloaded with its `?code=`) just resumes: no use is counted again.
  if (ticket && await movesToLane(s, q, ticket, proofs)) {
    const lane = await redeemPriority(s, q, proofs.priorityCode!);
    await s.engine.leave(q, ticket, ticket.sub);
    // A new id: a place left before the sequencer numbered it keeps its record until then.
    return await s.engine.join(q, null, undefined, { records: [], lane });
  }
  // The join guards first (a refused check must not use up the client's allowance), then the
  // per-client limit; resuming with a valid ticket for this queue needs neither.
  const resuming = ticket !== null && ticket.queue === q;
  // IPv6 by its /64: a client cannot shed its attempts (or move a challenge) by hopping
  // addresses inside its own network.
  const client = clientKey(who.ip);
  const shadow = shadowLineOf(settings.joinGuards);
  try {
    const pass = await s.guards.check({ queue: q, client, ip: who.ip, resuming, ...proofs });
    // The engine asks for the allowance only when the join takes a new place: an enqueue key
    // that already holds one resumes it (from any browser or device) without using any.
    // A priority code is redeemed (one use counted) only for a new place, after the limit.
    const limit = resuming ? undefined : async () => {
      await takeNewPlace(s, q, client, shadow);
      if (proofs.priorityCode !== undefined) {
        pass.lane = await redeemPriority(s, q, proofs.priorityCode);
      }
    };
    return await s.engine.join(q, ticket, visitorId, pass, limit);
  } catch (e) {
    // A wrong, forged or replayed solution (the replay is found at the join's commit), or a flood
    // far past the client's limit: a place in the shadow line instead of an error to react to.
    const shadowed = shadow.on && (e instanceof ChallengeFailedError || e instanceof ShadowPlace);
    if (!shadowed) throw e;
    s.guards.stats.add(q, "shadowPlaced");
    return await s.engine.shadowJoin(q);
  }
}

/** True when a held place of `q` in its main line comes with a priority code. */
async function movesToLane(
  s: AccessJoinDeps,
  q: string,
  ticket: TicketClaims,
  proofs: JoinProofs,
): Promise<boolean> {
  if (proofs.priorityCode === undefined || ticket.queue !== q) return false;
  const rec = await s.engine.visitor(q, ticket.sub);
  return rec !== null && rec.state === "waiting" && rec.lane === undefined;
}

/** Redeems a priority code for `q` (403 `priority_code_invalid` when refused): its lane. */
async function redeemPriority(s: AccessJoinDeps, q: string, code: string): Promise<string> {
  return (await redeemCode(s.kv, s.clock, s.config.TOKEN_SECRET, q, code)).lane;
}

/** Whether a queue's refusals go to its shadow line, and at what factor over the client limit. */
function shadowLineOf(g: JoinGuardSettings): { on: boolean; factor: number } {
  return { on: g.shadowLine && g.challenge !== "off", factor: g.shadowOverLimitFactor };
}

/** Thrown by the client limit where the shadow line takes the join instead of a 429. */
class ShadowPlace extends Error {}

/** Counts a new place against the client's per-minute allowance; 429 when it is spent. */
async function takeNewPlace(
  s: AccessJoinDeps,
  q: string,
  client: string,
  shadow: { on: boolean; factor: number },
): Promise<void> {
  const settings = await s.engine.settings(q);
  const perMinute = settings.joinsPerClientPerMinute ?? s.config.JOINS_PER_CLIENT_PER_MINUTE;
  const now = s.clock.now();
  const took = s.access.clientLimit.take(q, client, perMinute, now);
  if (took.ok) return;
  if (shadow.on && shadow.factor > 0 && took.overFactor >= shadow.factor) throw new ShadowPlace();
  countRefusal(s.access.hits, q, "client_limit", now);
  throw new ClientLimitError(took.retryAfterSeconds, perMinute);
}

/**
 * An allowlisted join (and a passthrough one, which its caller counts): a signed access token
 * and a ticket, and nothing else. No visitor record
 * is written, so no place, slot, counter or rate budget is used, and pause, opening time, health
 * pause and the waiting-row cap do not apply. The ticket carries arrival number 0 (real arrivals
 * start at 1), so status and heartbeat answer 404 `not_in_queue` (a client then joins again and
 * is admitted again), and leave answers `left`. A visitor that held a place or slot from before
 * it was allowlisted gives it up here.
 */
async function bypassJoin(
  s: AccessJoinDeps,
  q: string,
  ticket: TicketClaims | null,
  visitorId: string | undefined,
): Promise<JoinOutcome> {
  await s.engine.settings(q); // 404 unknown_queue, as for everyone
  let id: string;
  if (ticket && ticket.queue === q) {
    id = ticket.sub;
    // A place it held gives way (a ticket of a join not numbered yet has no number either).
    await s.engine.leave(q, ticket, id);
  } else if (visitorId !== undefined) {
    // The same rule as a normal join: someone else's id needs its ticket.
    if (await s.engine.visitor(q, visitorId)) {
      throw new UnauthorizedError(
        `visitorId "${visitorId}" is already in queue "${q}"; send its tg_ticket to resume`,
      );
    }
    id = visitorId;
  } else id = newVisitorId(s.engine.ctx);
  const now = s.clock.now();
  const [accessToken, ticketText] = await Promise.all([
    s.signer.signAccessToken(id, q, now, s.config.ACCESS_TOKEN_TTL_SECONDS),
    s.signer.signTicket({ sub: id, queue: q, iat: Math.floor(now / 1000), seq: 0, nextCheckAt: 0 }),
  ]);
  return {
    view: { queue: q, visitorId: id, status: "admitted", entered: true, accessToken },
    ticket: ticketText,
  };
}
