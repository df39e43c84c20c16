/**
 * The engine with the holder check of moved places (see holder.ts) in front of every visitor
 * call that reaches the store. A status the engine answers from memory is passed through as is,
 * so a waiter's check-ins that are not due still never touch KV. The engine re-signs tickets
 * from its records, which know nothing of holders: a current holder's generation is put back
 * into the ticket it is given.
 */
import { Engine } from "../queue/engine.ts";
import type { JoinGuardPass, JoinOutcome } from "../queue/join.ts";
import type { Outcome } from "../queue/visitor.ts";
import { readTicketUnverified, type TicketClaims } from "../tokens.ts";
import { checkHolder } from "./holder.ts";
import { extendHold } from "../queue/hold_extend.ts";

/** `Engine` whose visitor calls refuse a browser its place was moved from (409 `place_moved`). */
export class HeldEngine extends Engine {
  /** Checks the holder when `ticket` acts in `q` (a ticket for another queue fails later). */
  async #check(q: string, ticket: TicketClaims | null): Promise<void> {
    if (ticket && ticket.queue === q) await checkHolder(this.ctx.kv, q, ticket);
  }

  /** Puts the holder generation of `ticket` back into the fresh ticket of `out`. */
  async #keep<T extends Outcome>(ticket: TicketClaims | null, out: T): Promise<T> {
    if (!ticket?.hg || !out.ticket) return out;
    const claims = readTicketUnverified(out.ticket); // signed just now by the engine
    if (claims.sub !== ticket.sub || claims.queue !== ticket.queue) return out;
    return { ...out, ticket: await this.ctx.signer.signTicket({ ...claims, hg: ticket.hg }) };
  }

  override async status(q: string, ticket: TicketClaims | null, visitorId?: string) {
    if (ticket && ticket.queue === q) {
      // Not due: answered from memory, no holder read (the design's one rule for status).
      const mem = this.statusNow(q, ticket, visitorId);
      if (mem) return mem;
    }
    // The holder read runs beside the engine's own reads (a due check-in costs no extra round
    // trip): a moved-away browser's check-in may renew the place or draw it in, which helps the
    // holder, but its answer (and any access token in it) is thrown away.
    const [, out] = await Promise.all([this.#check(q, ticket), super.status(q, ticket, visitorId)]);
    return await this.#keep(ticket, out);
  }

  override async heartbeat(q: string, ticket: TicketClaims | null, visitorId: string) {
    const [, out] = await Promise.all([
      this.#check(q, ticket),
      super.heartbeat(q, ticket, visitorId),
    ]);
    return await this.#keep(ticket, out);
  }

  override async enter(q: string, ticket: TicketClaims | null, visitorId: string) {
    await this.#check(q, ticket);
    return await this.#keep(ticket, await super.enter(q, ticket, visitorId));
  }

  /** "I need more time": extends a click-to-enter hold (see hold_extend.ts). */
  async extendHold(q: string, ticket: TicketClaims | null, visitorId: string) {
    await this.#check(q, ticket);
    return await extendHold({ kv: this.ctx.kv, engine: this }, q, ticket, visitorId);
  }

  override async leave(q: string, ticket: TicketClaims | null, visitorId: string) {
    await this.#check(q, ticket);
    return await super.leave(q, ticket, visitorId);
  }

  override async join(
    q: string,
    ticket: TicketClaims | null,
    visitorId?: string,
    guard?: JoinGuardPass,
    beforeNewPlace?: () => Promise<void>,
  ): Promise<JoinOutcome> {
    await this.#check(q, ticket);
    return await this.#keep(ticket, await super.join(q, ticket, visitorId, guard, beforeNewPlace));
  }
}
