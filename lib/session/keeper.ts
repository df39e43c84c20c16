/**
 * The session check every admitted request passes (origin proxy, `/verify`, `requireAdmission()`)
 * after its token's signature: is the session still on, and, in a sliding queue, renew it.
 *
 * Cost, since it runs on every request to the site: in a fixed queue, nothing but a map lookup
 * (and one list a second per instance for releases, ended.ts). In a sliding queue each instance
 * keeps what it last read of the visitor's record; it reads and writes again only when the
 * record's last renewal is a renewal interval old (settings.ts), or the time it was read for has
 * passed. The write is checked against the record, so across every instance a visitor's session
 * is written at most once per interval: an instance that lost the race reads a fresh record and
 * finds nothing to do.
 *
 * A renewal moves the record's `until` (when the tick frees the slot) to the last request plus
 * the idle time plus the interval, never past the hard cap nor the newest token's expiry, and
 * re-issues the token (a new `iat`, kept in the record's `enteredAt`, from which every answer
 * signs it) only when less than half its life is left. Beside the record it keeps a mark of the
 * session until that token expires: a token whose record is gone (idle, cap, released) is refused
 * through the mark, while a token that never had a record (an allowlisted visitor, an admin pass)
 * has no mark and passes, as it does in a fixed queue.
 */
import { keys } from "../store/keys.ts";
import type { Engine } from "../queue/engine.ts";
import type { Visitor } from "../queue/types.ts";
import type { AccessClaims, Signer } from "../tokens.ts";
import { EndedSessions } from "./ended.ts";
import { readSessionSettings, renewalIntervalMs, type SessionSettings } from "./settings.ts";
import { countSession } from "./stats.ts";

/** What the check says of one admitted request. */
export interface SessionVerdict {
  ok: boolean;
  /** A newer token of the same session: the answer sets it as the `tg_access` cookie. */
  token?: string;
}

/** The mark of a sliding session (see the header). */
interface SessionMark {
  iat: number;
}

/** What this instance last read of a sliding visitor. */
interface Known {
  readAt: number;
  /**
   * The record's `until`, `seenAt` and newest token `iat`; `until` 0 when ended (then `iat` is the
   * mark's: tokens up to it are the ended session's), -1 when the token never held a slot.
   */
  until: number;
  seenAt: number;
  iat: number;
}

/** What the keeper needs from the service. */
export interface SessionDeps {
  kv: Deno.Kv;
  now: () => number;
  signer: Signer;
  ttlSeconds: number;
  /** The engine's calls a release makes (the `Engine` has them). */
  engine: ReleaseEngine;
}

/** The engine calls a release needs: read the visitor, and the leave that frees its slot. */
export type ReleaseEngine = Pick<Engine, "visitor" | "leave">;

const OK: SessionVerdict = { ok: true };
const REFUSED: SessionVerdict = { ok: false };
/** Most visitors remembered per instance (a miss costs one read). */
const MAX_KNOWN = 200_000;

/** How long a session check waits for the store before the signed token passes alone (ms). */
const STORE_WAIT_MS = 1000;

/** Session checks and renewals of this instance. */
export class SessionKeeper {
  readonly ended: EndedSessions;
  #settings = new Map<string, { s: SessionSettings; at: number }>();
  #known = new Map<string, Known>();
  #renewing = new Map<string, Promise<Known | null>>();

  constructor(readonly deps: SessionDeps) {
    this.ended = new EndedSessions(deps.kv, deps.now, deps.ttlSeconds);
  }

  /** The session settings of `q`, read at most once a second. */
  async settings(q: string): Promise<SessionSettings> {
    const hit = this.#settingsNow(q);
    if (hit) return hit;
    const s = await readSessionSettings(this.deps.kv, q);
    this.#settings.set(q, { s, at: this.deps.now() });
    return s;
  }

  /** The cached settings of `q` while under a second old. */
  #settingsNow(q: string): SessionSettings | undefined {
    const now = this.deps.now();
    const hit = this.#settings.get(q);
    return hit && now - hit.at < 1000 && now >= hit.at ? hit.s : undefined;
  }

  /** Forgets the cached settings of `q` (this instance changed them). */
  invalidate(q: string): void {
    this.#settings.delete(q);
  }

  /**
   * The session check of a request whose token verified with `claims`. Answers without an await
   * in the usual case (the release list looked at this second, the settings and the visitor
   * known), since every admitted request pays for it.
   */
  check(claims: AccessClaims): SessionVerdict | Promise<SessionVerdict> {
    if (this.ended.fresh()) return this.#bounded(claims);
    if (this.ended.ended(claims.queue, claims.sub, claims.iat)) return REFUSED;
    const s = this.#settingsNow(claims.queue);
    if (!s) return this.#bounded(claims);
    if (s.sessionMode !== "sliding") return OK;
    const k = this.#known.get(`${claims.queue}\0${claims.sub}`);
    const every = renewalIntervalMs(s.sessionIdleSeconds, this.deps.ttlSeconds);
    if (!k || !settled(k, this.deps.now(), every)) return this.#bounded(claims);
    return this.#verdict(claims, k);
  }

  /**
   * The slow check, bounded: a store that fails or does not answer within `STORE_WAIT_MS` lets
   * the signed token pass (a visitor with a token passes while the store is down, whatever
   * STORE_FAILURE says; see docs/traffic-policy.md), never holding the request.
   */
  #bounded(claims: AccessClaims): Promise<SessionVerdict> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<SessionVerdict>((resolve) => {
      timer = setTimeout(() => resolve(OK), STORE_WAIT_MS);
    });
    const slow = this.#checkSlow(claims).catch(() => OK);
    return Promise.race([slow, late]).finally(() => clearTimeout(timer));
  }

  async #checkSlow(claims: AccessClaims): Promise<SessionVerdict> {
    const look = this.ended.fresh();
    if (look) await look;
    if (this.ended.ended(claims.queue, claims.sub, claims.iat)) return REFUSED;
    const s = await this.settings(claims.queue);
    if (s.sessionMode !== "sliding") return OK;
    const key = `${claims.queue}\0${claims.sub}`;
    const every = renewalIntervalMs(s.sessionIdleSeconds, this.deps.ttlSeconds);
    let k = this.#known.get(key);
    if (!k || !settled(k, this.deps.now(), every)) {
      let p = this.#renewing.get(key);
      if (!p) {
        p = this.#renew(claims, s, every).finally(() => this.#renewing.delete(key));
        this.#renewing.set(key, p);
      }
      k = await p ?? undefined;
      if (!k) return REFUSED;
    }
    return await this.#verdict(claims, k);
  }

  /** What `k`, known of the visitor, says of a request with `claims`. */
  #verdict(claims: AccessClaims, k: Known): SessionVerdict | Promise<SessionVerdict> {
    if (k.until === -1) return OK;
    // Ended: its tokens are refused; a newer token without a record (allowlisted since) passes.
    if (k.until === 0) return claims.iat <= k.iat ? REFUSED : OK;
    if (k.until <= this.deps.now()) return REFUSED;
    if (k.iat <= claims.iat) return OK;
    const { sub, queue } = claims;
    const exp = k.iat + this.deps.ttlSeconds;
    return this.deps.signer.sign({ sub, queue, iat: k.iat, exp }).then((token) => ({
      ok: true,
      token,
    }));
  }

  /** Reads the record and writes the renewal when due; null when the session is over. */
  async #renew(claims: AccessClaims, s: SessionSettings, every: number): Promise<Known | null> {
    const { kv, now: clock } = this.deps;
    const q = claims.queue, id = claims.sub;
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = clock();
      const [ve, me] = await kv.getMany<[Visitor, SessionMark]>([
        keys.visitor(q, id),
        keys.sessionMark(q, id),
      ]);
      const v = ve.value;
      if (!v || v.state !== "entered" || v.until === undefined) {
        // A mark says a sliding session of this visitor was on: it ended. No mark: a token that
        // never held a slot (allowlist, admin pass), or a session never renewed, which ends
        // with its token anyway.
        const known = {
          readAt: now,
          until: me.value ? 0 : -1,
          seenAt: now,
          iat: me.value?.iat ?? 0,
        };
        return this.#remember(q, id, known);
      }
      const iat = Math.floor(v.enteredAt! / 1000);
      if (v.until <= now) return null; // over; the tick frees the slot
      const seenAt = v.seenAt ?? v.enteredAt!;
      const window = now + s.sessionIdleSeconds * 1000 + every;
      // Due a interval after the last write, and at once when the record holds the slot longer
      // than a sliding session may (its first request after entry, or a shorter idle time).
      if (now - seenAt < every && v.until <= window) {
        return this.#remember(q, id, { readAt: now, until: v.until, seenAt, iat });
      }
      const ttlMs = this.deps.ttlSeconds * 1000;
      const reissue = v.enteredAt! + ttlMs - now < ttlMs / 2;
      const enteredAt = reissue ? Math.floor(now / 1000) * 1000 : v.enteredAt!;
      const capAt = s.sessionMaxSeconds === null
        ? undefined
        : (v.admittedAt ?? v.enteredAt!) + s.sessionMaxSeconds * 1000;
      const until = Math.min(window, capAt ?? Infinity, enteredAt + ttlMs);
      const next: Visitor = { ...v, enteredAt, until, seenAt: now };
      if (capAt !== undefined) next.capAt = capAt;
      else delete next.capAt;
      const op = kv.atomic().check(ve, me)
        .set(keys.visitor(q, id), next)
        .delete(keys.expiry(q, v.until, id))
        .set(keys.expiry(q, until, id), "entered")
        .set(keys.sessionMark(q, id), { iat: enteredAt / 1000 } satisfies SessionMark, {
          expireIn: enteredAt + ttlMs - now + 60_000,
        });
      countSession(op, q, "renewed");
      if ((await op.commit()).ok) {
        return this.#remember(q, id, { readAt: now, until, seenAt: now, iat: enteredAt / 1000 });
      }
    }
    // A record changing under every attempt (the tick freeing it, or the visitor leaving): the
    // request passes on what its token says; the next one reads again.
    return { readAt: clock(), until: clock() + 1, seenAt: -Infinity, iat: claims.iat };
  }

  #remember(q: string, id: string, k: Known): Known {
    if (this.#known.size >= MAX_KNOWN) this.#known.clear();
    this.#known.set(`${q}\0${id}`, k);
    return k;
  }

  /** Forgets what this instance knows of a visitor (it released the session here). */
  forget(q: string, id: string): void {
    this.#known.delete(`${q}\0${id}`);
  }
}

/**
 * True when what is known of a visitor answers without a read: a live record whose renewal is not
 * due and whose time has not passed; an ended or slotless one read within the last second.
 */
function settled(k: Known, now: number, every: number): boolean {
  if (now < k.readAt) return false;
  if (k.until <= 0) return now - k.readAt < 1000;
  return now < k.until && now - k.seenAt < every;
}
