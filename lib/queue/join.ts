import { AppError, QueueFullError, UnauthorizedError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { b64url, type TicketClaims } from "../tokens.ts";
import {
  bucketCap,
  openSlots,
  type QueueContext,
  type QueueView,
  refill,
  wholeTokens,
} from "./context.ts";
import { countTraffic, grantSlot, putWaiting } from "./records.ts";
import { sumCheckins } from "./slots.ts";
import { admittedView, waitingView } from "./view.ts";
import { leave, type Outcome, schedule, settle, ticketFor } from "./visitor.ts";
import type { Counts, Visitor } from "./types.ts";

/** A join's result: the visitor's view (admitted or waiting) and the ticket to set. */
export interface JoinOutcome extends Outcome {
  ticket: string;
}

interface Pending {
  id: string;
  supplied: boolean;
  resolve: (v: Visitor) => void;
  reject: (e: unknown) => void;
}

/** What a join commit reads, as the last successful one of this instance left it. */
/** Largest group commit: three mutations a join (an op allows 1000). */
const MAX_BATCH = 250;
/** Joins with a client-supplied id per commit: each costs one check (an op allows 100). */
const MAX_SUPPLIED = 90;

/** Takes the next batch: up to MAX_BATCH joins, of which up to MAX_SUPPLIED supplied ids. */
function takeBatch(list: Pending[]): Pending[] {
  let supplied = 0, i = 0;
  while (i < list.length && i < MAX_BATCH && (supplied < MAX_SUPPLIED || !list[i].supplied)) {
    if (list[i].supplied) supplied++;
    i++;
  }
  return list.splice(0, i);
}

/**
 * Group commit of joins: joins that arrive while a commit is in flight are written together in
 * the next one, so the hot counter is checked once per batch instead of once per visitor.
 */
export class JoinBatcher {
  #pending = new Map<string, Pending[]>();
  #busy = new Set<string>();

  constructor(private ctx: QueueContext) {}

  /** Queues a new visitor for the next group commit of queue `q`. */
  add(q: string, id: string, supplied: boolean): Promise<Visitor> {
    return new Promise((resolve, reject) => {
      let list = this.#pending.get(q);
      if (!list) this.#pending.set(q, list = []);
      list.push({ id, supplied, resolve, reject });
      if (!this.#busy.has(q)) this.#flush(q);
    });
  }

  async #flush(q: string): Promise<void> {
    this.#busy.add(q);
    try {
      // Let the joins of this event-loop turn arrive before the first commit.
      await Promise.resolve();
      for (;;) {
        const list = this.#pending.get(q) ?? [];
        if (list.length === 0) break;
        const batch = takeBatch(list);
        try {
          await this.#commit(q, batch);
        } catch (e) {
          for (const p of batch) p.reject(e);
        }
      }
    } finally {
      this.#busy.delete(q);
    }
  }

  async #commit(q: string, batch: Pending[]): Promise<void> {
    const ctx = this.ctx;
    let items = batch;
    let committed: Counts | null = null;
    const results = await ctx.serial(q, () =>
      retryCommit(async () => {
        const now = ctx.now();
        // The state this instance's last join commit left, if any: its checks fail (and the
        // retry reads afresh) when anything else wrote the counts or settings since.
        const cached = ctx.joinState.get(q);
        ctx.joinState.delete(q);
        const [{ counts, entry, settings, settingsEntry }, branding] = await Promise.all([
          cached ? { ...cached, counts: { ...cached.counts } } : ctx.readState(q),
          ctx.branding(q),
        ]);
        if (!settings) throw new AppError(404, "unknown_queue", `unknown queue "${q}"`);
        await ctx.slots.refresh(q, Math.floor(now / 1000), ctx.periodMs(counts.waiting) / 1000);
        const open = ctx.isOpen(settings, now);
        const rate = ctx.ratePerSecond(settings);
        refill(counts, rate, now, open, bucketCap(rate));
        const op = ctx.kv.atomic().check(entry, settingsEntry);
        const out: (Visitor | Error)[] = [];
        let joined = 0, admitted = 0;
        const slots: number[] = [];
        const seen = new Set<string>();
        // The line as newcomers see it: these counts, no departures between head and them.
        const line: QueueView = {
          settings,
          counts,
          head: null,
          gone: [],
          goneSet: new Set(),
          loadedAt: now,
        };
        for (const p of items) {
          if (seen.has(p.id)) {
            // The same new id twice in one batch (a double click): the second is a takeover.
            out.push(
              new UnauthorizedError(`visitorId "${p.id}" is already joining queue "${q}"`),
            );
            continue;
          }
          seen.add(p.id);
          if (p.supplied) op.check({ key: keys.visitor(q, p.id), versionstamp: null });
          if (counts.waiting >= settings.maxWaitingVisitors) {
            out.push(new QueueFullError(q, settings.maxWaitingVisitors));
            continue;
          }
          const seq = counts.nextSeq++;
          joined++;
          if (
            open && counts.waiting === 0 && openSlots(settings, counts) > 0 &&
            wholeTokens(counts) >= 1
          ) {
            // Capacity at once: a slot without ever waiting (a wait of zero in the averages).
            counts.tokens--;
            counts.waitCount++;
            admitted++;
            const fresh: Visitor = {
              id: p.id,
              seq,
              joinedAt: now,
              state: "waiting",
              nextCheckAt: 0,
              deadline: 0,
            };
            const hold = now + branding.admitHoldSeconds * 1000;
            const ttl = branding.clickToEnter ? undefined : ctx.config.ACCESS_TOKEN_TTL_SECONDS;
            out.push(grantSlot(op, q, fresh, counts, now, hold, ttl));
            continue;
          }
          counts.waiting++;
          // The newcomer is last in line: its position is the waiting count.
          const [nca, deadline, slot] = schedule(
            ctx,
            q,
            { ...line, head: seq - counts.waiting + 1 },
            seq,
            "join",
          );
          if (slot !== null) slots.push(slot);
          const v: Visitor = {
            id: p.id,
            seq,
            joinedAt: now,
            state: "waiting",
            nextCheckAt: nca,
            deadline,
          };
          putWaiting(op, q, v);
          out.push(v);
        }
        sumCheckins(op, q, slots);
        countTraffic(op, q, now, "in", joined);
        countTraffic(op, q, now, "out", admitted);
        op.set(keys.counts(q), counts);
        const res = await op.commit();
        if (res.ok) {
          committed = counts;
          ctx.joinState.set(q, {
            counts: { ...counts },
            entry: { key: entry.key, versionstamp: res.versionstamp },
            settings,
            settingsEntry,
          });
          return out;
        }
        const supplied = items.filter((p) => p.supplied);
        if (supplied.length > 0) {
          const taken = new Set<string>();
          for (let i = 0; i < supplied.length; i += 10) {
            const got = await ctx.kv.getMany(
              supplied.slice(i, i + 10).map((p) => keys.visitor(q, p.id)),
            );
            for (const g of got) if (g.value) taken.add(g.key[2] as string);
          }
          for (const p of items) {
            if (taken.has(p.id)) {
              p.reject(
                new UnauthorizedError(
                  `visitorId "${p.id}" is already in queue "${q}"; send its tg_ticket to resume`,
                ),
              );
            }
          }
          items = items.filter((p) => !taken.has(p.id));
          if (items.length === 0) return [];
        }
        return null;
      }, "join"));
    const firstWaiting = results.find((r): r is Visitor =>
      !(r instanceof Error) && r.state === "waiting"
    );
    if (committed) ctx.noteJoined(q, committed, firstWaiting?.seq ?? null);
    results.forEach((r, i) => r instanceof Error ? items[i].reject(r) : items[i].resolve(r));
  }
}

/** New visitor id: a sortable time prefix and 128 random bits, base64url. */
export function newVisitorId(ctx: QueueContext): string {
  // A time prefix (base 36, digits and capitals sort in byte order) keeps new records close
  // together in the KV file, which makes group commits several times faster than random ids.
  const t = ctx.now().toString(36).toUpperCase().padStart(9, "0");
  return t + b64url(ctx.random.bytes(16));
}

/**
 * `POST /join`: a valid ticket for this queue resumes its visitor (a conflicting body id is
 * ignored); a visitor that is gone joins again at the back under the same id.
 */
export async function join(
  ctx: QueueContext,
  batcher: JoinBatcher,
  q: string,
  ticket: TicketClaims | null,
  visitorId?: string,
): Promise<JoinOutcome> {
  await ctx.view(q);
  let id = visitorId;
  let supplied = visitorId !== undefined;
  if (ticket && ticket.queue === q) {
    try {
      const out = await settle(ctx, q, ticket.sub, "join");
      const rec = await ctx.kv.get<Visitor>(keys.visitor(q, ticket.sub));
      const tk = out.ticket ?? (rec.value ? await ticketFor(ctx, q, rec.value) : "");
      return { ...out, ticket: tk };
    } catch (e) {
      if (!(e instanceof AppError) || e.code !== "not_in_queue") throw e;
      // An admission that ran out may still have a record until the sweep: free it first.
      await leave(ctx, q, ticket, ticket.sub);
    }
    id = ticket.sub;
    supplied = true;
  }
  const v = await batcher.add(q, id ?? newVisitorId(ctx), supplied);
  const ticketStr = await ticketFor(ctx, q, v);
  if (v.state !== "waiting") {
    return { view: await admittedView(ctx, q, v), ticket: ticketStr };
  }
  const view = await ctx.view(q);
  const branding = await ctx.branding(q);
  return {
    view: waitingView(ctx, q, v.id, v.seq, v.nextCheckAt, view, branding),
    ticket: ticketStr,
  };
}
