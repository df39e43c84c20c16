/** Tickets for status load: real `POST /join` calls against the server, their `tg_ticket` kept. */

/** A `tg_ticket` and the claims the status path looks at. */
export interface Ticket {
  ticket: string;
  sub: string;
  seq: number;
  /** Next check-in, unix ms: before it, status answers from the cached view. */
  nca: number;
}

/** Reads the (signed, not secret) payload of a ticket. */
export function decodeTicket(ticket: string): Ticket {
  const body = ticket.split(".")[0].replace(/-/g, "+").replace(/_/g, "/");
  const claims = JSON.parse(atob(body + "===".slice((body.length + 3) % 4)));
  return { ticket, sub: claims.sub, seq: claims.seq, nca: claims.nca };
}

/** Joins `count` new visitors (no visitorId: each is distinct), `concurrency` at a time. */
export async function joinVisitors(
  base: string,
  count: number,
  concurrency = 16,
): Promise<Ticket[]> {
  const out: Ticket[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const r = await fetch(`${base}/join`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ queue: "default" }),
      });
      await r.body?.cancel();
      if (r.status !== 202) continue; // admitted at once: no waiting ticket
      const m = r.headers.getSetCookie().map((c) => /^tg_ticket=([^;]+)/.exec(c)).find(Boolean);
      if (m) out.push(decodeTicket(m[1]));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

/**
 * Tickets whose slot is not due before `untilMs`, joining in rounds until `want` are found or
 * `maxJoins` were spent; returns what it has then.
 */
export async function notDueTickets(
  base: string,
  want: number,
  untilMs: number,
  maxJoins: number,
): Promise<{ tickets: Ticket[]; joined: number }> {
  const out: Ticket[] = [];
  let joined = 0;
  while (out.length < want && joined < maxJoins) {
    const n = Math.min(maxJoins - joined, Math.max(100, want - out.length));
    const got = await numbered(base, await joinVisitors(base, n));
    joined += n;
    out.push(...got.filter((t) => t.nca > untilMs));
  }
  return { tickets: out.slice(0, want), joined };
}

/**
 * 0.8: a join's ticket has no arrival number until the next tick's sequencer gives it one (its
 * status until then reads the store, as the slow path); after a tick, the first status of each
 * gives the numbered ticket, which later statuses answer from memory. Returns those tickets (a
 * ticket still unnumbered stays as it is).
 */
export async function numbered(base: string, tickets: Ticket[]): Promise<Ticket[]> {
  if (!tickets.some((t) => t.seq === 0)) return tickets;
  await new Promise((r) => setTimeout(r, 2100)); // a tick (the server runs one every second)
  const out: Ticket[] = [];
  for (let i = 0; i < tickets.length; i += 16) {
    out.push(
      ...await Promise.all(
        tickets.slice(i, i + 16).map(async (t) => {
          if (t.seq !== 0) return t;
          const r = await fetch(`${base}/status?queue=default`, {
            headers: { cookie: `tg_ticket=${t.ticket}` },
          });
          await r.body?.cancel();
          const m = r.headers.getSetCookie().map((c) => /^tg_ticket=([^;]+)/.exec(c)).find(Boolean);
          return m ? decodeTicket(m[1]) : t;
        }),
      ),
    );
  }
  return out;
}
