import { Buffer } from "node:buffer";
import { BadRequestError } from "./errors.ts";
import { HmacSha256 } from "./hmac.ts";

/**
 * Access tokens and tickets: `base64url(JSON payload) + "." + base64url(HMAC-SHA256)`.
 * The HMAC is over the base64url payload string, keyed with `TOKEN_SECRET`.
 */

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Claims of an access token (exactly these four). */
export interface AccessClaims {
  sub: string;
  queue: string;
  iat: number;
  exp: number;
}

/**
 * Claims of a `tg_ticket`: visitor id, queue, issue time, the arrival number and the next
 * check-in time. On the wire the last one is `nca` (kept, so tickets survive upgrades).
 */
export interface TicketClaims {
  sub: string;
  queue: string;
  iat: number;
  seq: number;
  /** Unix ms of the visitor's next check-in (`nca` on the wire). */
  nextCheckAt: number;
  /**
   * Holder generation (`hg` on the wire, absent for 0): which browser holds the place after it
   * was moved to another device with a resume code (see lib/resume/holder.ts).
   */
  hg?: number;
  /**
   * Arrival time (unix ms, `am` on the wire) of a join the sequencer has not numbered yet: while
   * it is after the last arrival numbered, the join surely waits unnumbered and its status is
   * answered from memory (lib/queue/visitor.ts).
   */
  arrivedAt?: number;
}

/**
 * A ticket's claims read WITHOUT verifying its signature: for tests and load tools that follow
 * tickets they were just given. Never use it on a request's ticket.
 */
export function readTicketUnverified(ticket: string): TicketClaims {
  const body = ticket.split(".")[0].replace(/-/g, "+").replace(/_/g, "/");
  const p = JSON.parse(atob(body + "===".slice((body.length + 3) % 4)));
  const out: TicketClaims = {
    sub: p.sub,
    queue: p.queue,
    iat: p.iat,
    seq: p.seq,
    nextCheckAt: p.nca,
  };
  if (Number.isInteger(p.hg) && p.hg > 0) out.hg = p.hg;
  if (Number.isInteger(p.am)) out.arrivedAt = p.am;
  return out;
}

/** Encodes bytes (the first `len` of them) as base64url without padding. */
export function b64url(bytes: Uint8Array, len = bytes.length): string {
  // Node's Buffer encodes natively, over a view without a copy: the fastest way in Deno.
  return Buffer.from(bytes.buffer, bytes.byteOffset, len).toString("base64url");
}

/** HMAC-SHA256 of `text` keyed with `secret`, base64url (session ids, webhook signatures). */
export function hmacB64url(secret: string | Uint8Array, text: string): string {
  return b64url(new HmacSha256(typeof secret === "string" ? enc.encode(secret) : secret).mac(text));
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * Decodes canonical base64url (no padding, zero spare bits); returns null on anything else, so
 * one value has exactly one text and a signed value cannot be altered while still verifying.
 */
export function fromB64url(s: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) return null;
  // The last character of a 2- or 3-character tail carries 4 or 2 bits nobody reads: they must
  // be zero (atob ignores them, which made `…8` and `…9` decode to the same bytes).
  const spare = s.length % 4 === 2 ? 0x0f : s.length % 4 === 3 ? 0x03 : 0;
  if (spare && (B64URL.indexOf(s[s.length - 1]) & spare) !== 0) return null;
  try {
    const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

const HEADER_SAFE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * True when `s` can be sent as an HTTP header value exactly as it is: visible ASCII with inner
 * spaces, nothing that `Headers` would refuse (CR, LF, NUL, non-Latin-1) or trim.
 */
export function headerSafe(s: string): boolean {
  return HEADER_SAFE.test(s);
}

/** Constant-time comparison of two byte strings. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a[i % (a.length || 1)] ?? 0) ^ (b[i % (b.length || 1)] ?? 0);
  return diff === 0;
}

/** Constant-time comparison of two strings (e.g. an operator credential). */
export function safeEqualString(a: string, b: string): boolean {
  return timingSafeEqual(enc.encode(a), enc.encode(b));
}

/** Keeps a verified token; bounded by forgetting everything at 100k (a miss costs one HMAC). */
function remember<T>(cache: Map<string, T>, token: string, claims: T): void {
  if (cache.size >= 100_000) cache.clear();
  cache.set(token, claims);
}

/** Signs and verifies tokens with one HMAC key derived from the service secret. */
export class Signer {
  // The key's pads are hashed once (lib/hmac.ts): a MAC costs about 2 µs, where node:crypto's
  // createHmac, which sets up the key on every call, cost about 14 µs on the join path.
  #hmac: HmacSha256;
  #json = new Uint8Array(1024);
  /** Tickets already verified, by their exact text: the same ticket comes back every poll. */
  #tickets = new Map<string, TicketClaims>();
  /** Access tokens whose signature and shape were verified, by their exact text. */
  #access = new Map<string, AccessClaims>();

  constructor(secret: string) {
    this.#hmac = new HmacSha256(enc.encode(secret));
  }

  #mac(body: string): Uint8Array {
    return this.#hmac.mac(body);
  }

  /** Signs any JSON payload. */
  sign(payload: object): Promise<string> {
    const json = JSON.stringify(payload);
    let body: string;
    if (json.length * 3 <= this.#json.length) {
      body = b64url(this.#json, enc.encodeInto(json, this.#json).written);
    } else body = b64url(enc.encode(json));
    return Promise.resolve(`${body}.${b64url(this.#mac(body))}`);
  }

  /** Verifies a signature (timing-safe) and returns the decoded payload, or null. */
  // deno-lint-ignore require-await
  async open(token: string | undefined | null): Promise<Record<string, unknown> | null> {
    if (!token || token.length > 4096) return null;
    const dot = token.indexOf(".");
    if (dot <= 0 || dot !== token.lastIndexOf(".")) return null;
    const body = token.slice(0, dot);
    const sig = fromB64url(token.slice(dot + 1));
    if (!sig || sig.length !== 32) return null;
    if (!timingSafeEqual(sig, this.#mac(body))) return null;
    const raw = fromB64url(body);
    if (!raw) return null;
    try {
      const v = JSON.parse(dec.decode(raw));
      return v && typeof v === "object" && !Array.isArray(v) ? v : null;
    } catch {
      return null;
    }
  }

  /** Issues an access token for `sub` in `queue`, valid `ttlSeconds` from `nowMs`. */
  signAccessToken(sub: string, queue: string, nowMs: number, ttlSeconds: number): Promise<string> {
    // `/verify` names the visitor and queue in response headers: a claim no header can carry is
    // never signed (and a token carrying one does not verify, below).
    if (!headerSafe(sub) || !headerSafe(queue)) {
      throw new BadRequestError("visitor id and queue must be printable ASCII", {
        fields: [{ path: headerSafe(sub) ? "queue" : "sub", message: "not printable ASCII" }],
      });
    }
    const iat = Math.floor(nowMs / 1000);
    return this.sign({ sub, queue, iat, exp: iat + ttlSeconds } satisfies AccessClaims);
  }

  /**
   * Verifies an access token: signature, shape, expiry and (when given) queue. A token whose
   * signature and shape passed once is remembered by its exact text (an admitted visitor sends the
   * same `tg_access` with every request through the proxy); expiry and queue are checked each call.
   */
  async verifyAccessToken(
    token: string | undefined | null,
    nowMs: number,
    queue?: string,
  ): Promise<AccessClaims | null> {
    if (!token) return null;
    let claims = this.#access.get(token);
    if (!claims) {
      const fresh = await this.#openAccess(token);
      if (!fresh) return null;
      remember(this.#access, token, claims = fresh);
    }
    if (claims.exp * 1000 <= nowMs) {
      this.#access.delete(token);
      return null;
    }
    if (queue !== undefined && claims.queue !== queue) return null;
    return { ...claims };
  }

  async #openAccess(token: string): Promise<AccessClaims | null> {
    const p = await this.open(token);
    if (!p) return null;
    const { sub, queue: q, iat, exp } = p;
    if (
      typeof sub !== "string" || typeof q !== "string" || !Number.isInteger(iat) ||
      !Number.isInteger(exp) || Object.keys(p).length !== 4 || !headerSafe(sub) || !headerSafe(q)
    ) return null;
    return { sub, queue: q, iat: iat as number, exp: exp as number };
  }

  /**
   * A MAC of `text` under this service's key for purposes other than tokens (a shadow visitor's
   * id tag): prefixed with `purpose:`, which no token body (base64url) can start with.
   */
  tag(purpose: string, text: string): Uint8Array {
    return this.#mac(`${purpose}:${text}`);
  }

  /** Issues a `tg_ticket`. */
  signTicket(claims: TicketClaims): Promise<string> {
    const { sub, queue, iat, seq, nextCheckAt, hg, arrivedAt } = claims;
    // The usual ticket (never moved, numbered) keeps its exact old shape.
    const p: Record<string, unknown> = { sub, queue, iat, seq, nca: nextCheckAt };
    if (hg) p.hg = hg;
    if (arrivedAt !== undefined) p.am = arrivedAt;
    return this.sign(p);
  }

  /** The claims of a ticket already verified (shared: read only), without an await. */
  knownTicket(token: string): Readonly<TicketClaims> | undefined {
    return this.#tickets.get(token);
  }

  /** Verifies a `tg_ticket`; returns its claims or null. */
  async verifyTicket(token: string | undefined | null): Promise<TicketClaims | null> {
    if (!token) return null;
    const hit = this.knownTicket(token);
    if (hit) return { ...hit };
    const claims = await this.#verifyTicket(token);
    if (claims) remember(this.#tickets, token, claims);
    return claims ? { ...claims } : null;
  }

  async #verifyTicket(token: string): Promise<TicketClaims | null> {
    const p = await this.open(token);
    if (!p) return null;
    const { sub, queue, iat, seq, nca, hg, am } = p;
    if (
      typeof sub !== "string" || typeof queue !== "string" || !Number.isInteger(iat) ||
      !Number.isInteger(seq) || !Number.isInteger(nca) || "exp" in p ||
      (hg !== undefined && !(Number.isInteger(hg) && (hg as number) > 0)) ||
      (am !== undefined && !Number.isInteger(am))
    ) return null;
    const out: TicketClaims = {
      sub,
      queue,
      iat: iat as number,
      seq: seq as number,
      nextCheckAt: nca as number,
    };
    if (hg !== undefined) out.hg = hg as number;
    if (am !== undefined) out.arrivedAt = am as number;
    return out;
  }
}
