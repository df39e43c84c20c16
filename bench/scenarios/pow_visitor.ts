/**
 * The ordinary visitors of the proof-of-work attack scenario: each joins from an address of its
 * own (10.0.0.0/8), solves the challenge it gets on a solver thread of the crowd, sends the join
 * again after 503 `store_busy` as the waiting page does, and once placed follows its timeslots.
 */
import { decodeTicket } from "../tickets.ts";
import type { Follower } from "./follower.ts";
import { postJoin, type Proof } from "./pow_join.ts";
import type { CrowdSolvers } from "./pow_solvers.ts";
import { pause } from "./target.ts";

/** The crowd's joins, and what they met. */
export class OrdinaryVisitors {
  placed = 0;
  /** Visitors whose first join was answered with a challenge. */
  challenged = 0;
  /** Hashes the crowd's solutions took (nonces are searched from 0). */
  tries = 0;
  /** Joins answered 503 `store_busy` and sent again. */
  busyRetries = 0;
  refused = new Map<string, number>();
  toPlaceMs: number[] = [];
  /** Each placed visitor's arrival number in the line, by visitor id. */
  seqOf = new Map<string, number>();

  constructor(private url: string, private crowd: CrowdSolvers, private follower: Follower) {}

  /** Visitor `i` joins (and is followed once placed). */
  async visit(i: number): Promise<void> {
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const arrived = Date.now();
    let proof: Proof | undefined;
    for (let attempt = 0; attempt < 12; attempt++) {
      const res = await postJoin(this.url, ip, proof);
      const body = await res.json();
      if (res.ok) {
        const ticket = res.headers.get("set-cookie")!.match(/tg_ticket=([^;]+)/)![1];
        const { sub, seq } = decodeTicket(ticket);
        this.placed++;
        this.toPlaceMs.push(Date.now() - arrived);
        this.seqOf.set(sub, seq);
        if (res.status === 202) this.follower.add(ticket);
        return;
      }
      const ch = body.error?.details?.challenge;
      if (body.error?.code === "store_busy") {
        // As the waiting page does: the same join again when the answer says (its proof unspent).
        this.busyRetries++;
        await pause(1000 * Number(res.headers.get("retry-after") ?? 1));
        continue;
      }
      if (!ch) {
        const code = body.error?.code ?? String(res.status);
        this.refused.set(code, (this.refused.get(code) ?? 0) + 1);
        return;
      }
      if (attempt === 0) this.challenged++;
      const nonce = await this.crowd.solve(ch);
      this.tries += Number(nonce) + 1;
      proof = { challenge: ch.challenge, nonce };
    }
    // Out of attempts: counted, so a visitor never goes missing without a trace.
    this.refused.set("attempts", (this.refused.get("attempts") ?? 0) + 1);
  }
}
