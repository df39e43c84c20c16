/**
 * A visitor's request for an e-mail at its turn. The address is sealed (AES-GCM under a key
 * derived from TOKEN_SECRET) and kept only in the request record, under the place's arrival
 * number so the mail job walks requests in line order; it is deleted when the e-mail is sent,
 * when the visitor takes it back, and when the place ends (the job finds it gone). It is never
 * logged and never in metrics, the audit log or an answer. Beside it the record keeps only the
 * language of the page it was asked on, so the e-mail speaks it. One commit per request.
 */
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { seal } from "../seal.ts";
import { retryCommit } from "../store/commit.ts";
import { deleteListed } from "../store/delete.ts";
import { keys } from "../store/keys.ts";
import type { TicketClaims } from "../tokens.ts";
import { checkTicket } from "../queue/visitor.ts";
import type { Engine } from "../queue/engine.ts";
import type { Lang } from "../i18n/langs.ts";
import { checkHolder } from "../resume/holder.ts";
import { hitRateLimit } from "../admin/rate_limit.ts";
import { hmacB64url } from "../tokens.ts";

/** The seal purpose of stored addresses (a key of their own). */
export const ADDRESS_PURPOSE = "mail-address";
/** A request outlives no place: the job deletes it sooner; this only cleans up after a crash. */
export const MAIL_SUB_TTL_MS = 2 * 86_400_000;

/** A stored e-mail request. */
export interface MailSub {
  id: string;
  /** The address, sealed. */
  sealed: string;
  /**
   * Older records only: the request's own origin, once used for the link. Never read: the link
   * names PUBLIC_URL (`mailLinkBase`), since a request's Host is whatever its sender wrote.
   */
  site?: string;
  /** The language of the page the visitor asked on (absent in older records: English). */
  lang?: Lang;
  /** The page the visitor asked for (`?return=`): the e-mail's link lands there too. */
  ret?: string;
  /** Failed sends so far (the job gives up after a few). */
  failures: number;
  /** After a failed send: not tried again before this (unix ms). */
  retryAt?: number;
}

/** Where visitor `id`'s request is: its arrival number, or "pre" before the opening draw. */
type SubIndex = { at: number | "pre" };

/** What a request needs from the service. */
export interface SubscribeDeps {
  kv: Deno.Kv;
  clock: Clock;
  config: Pick<Config, "TOKEN_SECRET">;
  engine: Engine;
  /** Whether e-mail is set up (an SMTP server and a sender), read at most once a second. */
  mail: { readonly enabled: boolean; refresh(): Promise<void> };
}

/**
 * What the per-recipient limit counts an address under: a MAC keyed by the service secret (the
 * address itself is never stored in the clear), with case and a `+tag` of the local part ignored,
 * so `Victim+1@Example.com` is `victim@example.com`.
 */
export function recipientTag(secret: string, address: string): string {
  const a = address.trim().toLowerCase();
  const at = a.lastIndexOf("@");
  const local = a.slice(0, at).split("+")[0];
  return hmacB64url(secret, `turn-mail-recipient:${local}${a.slice(at)}`).slice(0, 22);
}

/** The key of a request by its index entry. */
function subKey(q: string, id: string, at: number | "pre") {
  return at === "pre" ? keys.mailSubPre(q, id) : keys.mailSub(q, at, id);
}

/**
 * Stores (or replaces) the e-mail request of the place `ticket` holds; the address is sealed, the
 * e-mail will be in `lang`.
 */
export async function subscribe(
  d: SubscribeDeps,
  q: string,
  ticket: TicketClaims | null,
  address: string,
  lang: Lang,
  returnPath = "",
): Promise<void> {
  await d.mail.refresh();
  if (!d.mail.enabled) {
    throw new NotFoundError("not_found", "this waiting room sends no e-mail (no SMTP server set)");
  }
  const t = checkTicket(q, ticket);
  await d.engine.settings(q); // 404 unknown_queue
  // At most a few requests an hour for one recipient, whoever asks (429 `rate_limited`).
  await hitRateLimit(d.kv, d.clock, "turnMail", recipientTag(d.config.TOKEN_SECRET, address));
  const sealed = await seal(d.config.TOKEN_SECRET, address, ADDRESS_PURPOSE);
  await retryCommit(async () => {
    await checkHolder(d.kv, q, t);
    const rec = await d.engine.visitor(q, t.sub);
    if (!rec) throw new NotFoundError("not_in_queue", `visitor "${t.sub}" is not in queue "${q}"`);
    if (rec.state !== "waiting") {
      throw new ConflictError("conflict", "it is this visitor's turn already: no e-mail needed");
    }
    const idx = await d.kv.get<SubIndex>(keys.mailSubOf(q, t.sub));
    const at = rec.round !== undefined || rec.seq === 0 ? "pre" : rec.seq;
    const sub: MailSub = { id: t.sub, sealed, lang, failures: 0 };
    if (returnPath) sub.ret = returnPath;
    const op = d.kv.atomic().check(idx);
    if (idx.value && idx.value.at !== at) op.delete(subKey(q, t.sub, idx.value.at));
    op.set(subKey(q, t.sub, at), sub, { expireIn: MAIL_SUB_TTL_MS })
      .set(keys.mailSubOf(q, t.sub), { at } satisfies SubIndex, { expireIn: MAIL_SUB_TTL_MS });
    return (await op.commit()).ok ? true : null;
  }, "mail request");
}

/** Deletes the e-mail request of the place `ticket` holds (none: nothing to do). */
export async function unsubscribe(
  d: SubscribeDeps,
  q: string,
  ticket: TicketClaims | null,
): Promise<void> {
  const t = checkTicket(q, ticket);
  await checkHolder(d.kv, q, t);
  await forgetSub(d.kv, q, t.sub);
}

/** Deletes visitor `id`'s request and its index, whatever state they are in. */
export async function forgetSub(kv: Deno.Kv, q: string, id: string): Promise<void> {
  const idx = await kv.get<SubIndex>(keys.mailSubOf(q, id));
  if (!idx.value) return;
  await kv.atomic().delete(subKey(q, id, idx.value.at)).delete(keys.mailSubOf(q, id)).commit();
}

/** Moves a request to a new key (a pre-queue request once the draw placed it), in `op`. */
export function moveSub(
  op: Deno.AtomicOperation,
  q: string,
  sub: MailSub,
  from: number | "pre",
  to: number,
): void {
  op.delete(subKey(q, sub.id, from))
    .set(subKey(q, sub.id, to), sub, { expireIn: MAIL_SUB_TTL_MS })
    .set(keys.mailSubOf(q, sub.id), { at: to } satisfies SubIndex, { expireIn: MAIL_SUB_TTL_MS });
}

/** Deletes a request and its index in `op` (sent, or its place ended). */
export function dropSub(op: Deno.AtomicOperation, q: string, id: string, at: number | "pre") {
  op.delete(subKey(q, id, at)).delete(keys.mailSubOf(q, id));
}

/**
 * Deletes every e-mail request of queue `q`, deleted with its places (the mail job walks live
 * queues only, so they would have stayed until their TTL, two days, after their places ended).
 */
export async function forgetMailRequests(kv: Deno.Kv, q: string): Promise<void> {
  for (const prefix of [keys.mailSubPrefix(q), keys.mailSubPrePrefix(q), keys.mailSubOfPrefix(q)]) {
    await deleteListed(kv, { prefix });
  }
}
