/**
 * The per-second mail job: sends the e-mail a visitor asked for when its turn comes. It walks
 * each queue's requests in line order against the admission state the engine already keeps in
 * memory (the head of the line and its gaps), so a second with nobody due costs one short list
 * per queue and no write. A due request is taken in one commit that deletes it (and with it the
 * address), counts the send and adds the resume code the e-mail carries; the address then lives
 * only in this process until the send ends. Sending never blocks admission or joins: it runs
 * here, off every request, one pass at a time, and a failed send is counted and tried again at
 * most twice. Lottery queues have no line order: their requests are checked every fifth second.
 */
import { LINE_SPAN, RETURN_SLOT, slotOf } from "../priority/line.ts";
import type { Clock, Random } from "../clock.ts";
import type { Config } from "../config.ts";
import { log } from "../log.ts";
import type { Engine } from "../queue/engine.ts";
import { lineOf, type QueueView } from "../queue/context.ts";
import { drawPending } from "../queue/prequeue_phase.ts";
import type { Visitor } from "../queue/types.ts";
import { unseal } from "../seal.ts";
import { keys } from "../store/keys.ts";
import { readHolder } from "../resume/holder.ts";
import { addMailCode } from "../resume/resume.ts";
import { showResumeCode } from "../resume/code.ts";
import { turnMail } from "./turn_mail.ts";
import { withReturn } from "../destination.ts";
import type { MailService } from "./service.ts";
import { ADDRESS_PURPOSE, dropSub, MAIL_SUB_TTL_MS, type MailSub, moveSub } from "./subscribe.ts";

/**
 * The origin (and base path) the turn e-mail's link names: `PUBLIC_URL`'s, or null (no link,
 * the code only) when it is not set.
 */
export function mailLinkBase(config: Pick<Config, "PUBLIC_URL" | "BASE_PATH">): string | null {
  if (!config.PUBLIC_URL) return null;
  return new URL(config.PUBLIC_URL).origin + (config.BASE_PATH ?? "");
}

/** What the job needs from the service. */
export interface MailJobDeps {
  kv: Deno.Kv;
  clock: Clock;
  random: Random;
  config: Pick<Config, "TOKEN_SECRET" | "PUBLIC_URL" | "BASE_PATH">;
  engine: Engine;
  /** The settings in force and their mailer. */
  mail: MailService;
}

/** Requests looked at per queue and pass (the rest wait for the next second). */
const PER_PASS = 200;
/** Sends at once. */
const PARALLEL = 10;
/** Failed sends of one request before it is given up (and its address deleted). */
const MAX_FAILURES = 3;

/** The job to call once a second; a pass still running makes the call a no-op. */
export function mailJob(d: MailJobDeps): () => Promise<void> {
  let running: Promise<void> | null = null;
  return () => {
    running ??= d.mail.refresh().then(() => d.mail.mailer ? mailPass(d) : undefined)
      .catch((e) => log("warn", "mail job failed", { error: String(e) }))
      .finally(() => (running = null));
    return running;
  };
}

/** One pass over every queue. */
export async function mailPass(d: MailJobDeps): Promise<void> {
  for (const q of await d.engine.queueNames()) {
    const v = await d.engine.ctx.view(q);
    if (!drawPending(v.settings)) await placePrequeue(d, q);
    const due = await dueRequests(d, q, v);
    for (let i = 0; i < due.length; i += PARALLEL) {
      await Promise.all(due.slice(i, i + PARALLEL).map((e) => handle(d, q, v, e)));
    }
  }
}

/** Positions at the front whose requests are looked at each pass for a waiter passed over. */
const PASSED_WINDOW = 200;

/** True when a waiter at `seq` is near enough the front for the operator's e-mail. */
function nearFront(d: MailJobDeps, v: QueueView, seq: number): boolean {
  const n = d.mail.atPosition;
  return n > 0 && v.settings.mode === "queue" && d.engine.ctx.position(v, seq) <= n;
}

/**
 * The requests whose turn may have come: a prefix of each line's order (the main line's and each
 * priority lane's, lib/priority/line.ts), or (lottery) all.
 */
async function dueRequests(d: MailJobDeps, q: string, v: QueueView) {
  const out: Deno.KvEntry<MailSub>[] = [];
  const lottery = v.settings.mode === "lottery";
  if (lottery && Math.floor(d.clock.now() / 1000) % 5 !== 0) return out;
  for (const slot of [0, ...(v.laneHeads?.keys() ?? [])]) {
    const list = d.kv.list<MailSub>({
      start: [...keys.mailSubPrefix(q), slot * LINE_SPAN],
      end: [...keys.mailSubPrefix(q), (slot + 1) * LINE_SPAN],
    }, { limit: PER_PASS });
    // Out of order: admitted past a silent waiter kept at the head (or left the line).
    const lastGone = v.gone.filter((s) => slotOf(s) === slot).at(-1) ?? -Infinity;
    for await (const e of list) {
      const seq = e.key[2] as number;
      const { head } = lineOf(v, seq);
      // The front's requests are looked at too: a silent waiter there may have been passed over
      // (its turn came while it was away; `handle` reads its record to know).
      const front = head !== null && d.engine.ctx.position(v, seq) <= PASSED_WINDOW;
      if (lottery || head === null || seq < head || front || nearFront(d, v, seq)) out.push(e);
      // In line order: once one is neither admitted (behind the head) nor near, none after is,
      // but for those that went in past a silent waiter ahead of them (a request of such a
      // waiter held back every e-mail behind it while its place was kept).
      else if (v.goneSet.has(seq)) out.push(e);
      else if (seq > lastGone) break;
    }
  }
  return out;
}

/** Requests without a number get their place once the draw is done and the sequencer ran. */
async function placePrequeue(d: MailJobDeps, q: string): Promise<void> {
  const list = d.kv.list<MailSub>({ prefix: keys.mailSubPrePrefix(q) }, { limit: PER_PASS });
  for await (const e of list) {
    const rec = await d.engine.visitor(q, e.value.id);
    const op = d.kv.atomic().check(e);
    if (!rec) dropSub(op, q, e.value.id, "pre");
    else if (rec.round === undefined && rec.seq > 0) moveSub(op, q, e.value, "pre", rec.seq);
    else continue;
    await op.commit();
  }
}

/** The place is over for good (or entered already): no e-mail can help any more. */
function ended(rec: Visitor | null): boolean {
  return !rec || rec.state === "entered";
}

/** Sends a due request's e-mail, drops one whose place ended, leaves one not due yet. */
async function handle(d: MailJobDeps, q: string, v: QueueView, e: Deno.KvEntry<MailSub>) {
  const sub = e.value, at = e.key[2] as number, now = d.clock.now();
  const rec = await d.engine.visitor(q, sub.id);
  if (ended(rec)) {
    const op = d.kv.atomic().check(e);
    dropSub(op, q, sub.id, at);
    await op.commit();
    return;
  }
  // An admission whose hold ran out: the tick ends it, or puts the place back at the front when
  // nobody learned of it (lib/queue/records.ts, `returnToLine`); decided at the next pass.
  if (rec!.state === "admitted" && (rec!.until ?? Infinity) <= now) return;
  // Its turn came while it was away: passed over by an admission, or back in line after an
  // admission it never saw (lib/queue/records.ts, `returnToLine`); the e-mail is how a phone in a
  // pocket learns it.
  const returner = rec!.state === "waiting" &&
    (slotOf(rec!.seq) === RETURN_SLOT || rec!.passedAt !== undefined);
  if (rec!.state === "waiting" && !returner && !nearFront(d, v, rec!.seq)) return;
  if ((sub.retryAt ?? 0) > now) return;
  const holder = await readHolder(d.kv, q, sub.id);
  const op = d.kv.atomic().check(e, holder);
  dropSub(op, q, sub.id, at);
  const code = addMailCode(d, op, q, rec!, holder.value?.gen ?? 0);
  op.sum(keys.mailCount(q, "sent"), 1n);
  if (!(await op.commit()).ok) return; // another instance took it, or it changed: next pass
  const near = rec!.state === "waiting" && !returner ? d.mail.atPosition : 0;
  try {
    const to = await unseal(d.config.TOKEN_SECRET, sub.sealed, ADDRESS_PURPOSE);
    if (to === null) throw new Error("the stored address cannot be read (TOKEN_SECRET rotated?)");
    const { title, messages } = await d.engine.ctx.branding(q);
    // The link names PUBLIC_URL only: a request's Host is whatever its sender wrote, and a place
    // taken with `Host: evil.example` would have this server mail a link there to any address.
    const site = mailLinkBase(d.config);
    const link = site &&
      withReturn(`${site}/wait?queue=${encodeURIComponent(q)}&resume=${code}`, sub.ret ?? "");
    const mailer = d.mail.mailer;
    if (!mailer) throw new Error("e-mail was turned off meanwhile");
    const facts = { title, link, code: showResumeCode(code), near };
    await mailer.send({ to, ...turnMail(facts, sub.lang, messages) });
  } catch (err) {
    // Counted, never logged with the address; tried again unless it failed too often.
    log("warn", "turn e-mail failed", { queue: q, error: String(err) });
    const again = d.kv.atomic().sum(keys.mailCount(q, "failed"), 1n);
    if (sub.failures + 1 < MAX_FAILURES) {
      const failures = sub.failures + 1;
      const next: MailSub = { ...sub, failures, retryAt: d.clock.now() + 30_000 * failures };
      again.set(keys.mailSub(q, at, sub.id), next, { expireIn: MAIL_SUB_TTL_MS })
        .set(keys.mailSubOf(q, sub.id), { at }, { expireIn: MAIL_SUB_TTL_MS });
    }
    await again.commit();
  }
}

/** E-mails taken for sending and failed, per queue (delivered = sent - failed). */
export async function mailCounts(kv: Deno.Kv, q: string) {
  const [sent, failed] = await kv.getMany<Deno.KvU64[]>([
    keys.mailCount(q, "sent"),
    keys.mailCount(q, "failed"),
  ]);
  return { sent: Number(sent.value?.value ?? 0n), failed: Number(failed.value?.value ?? 0n) };
}
