/**
 * Waiting visitors following their timeslots, as the wait page does: each visitor's status is
 * asked at the `nextCheckAt` of its previous answer (server time), with the ticket that answer
 * set, until it learns it was admitted. Counts the requests per server second (the 750/s budget)
 * and when each visitor learned of its admission.
 */
import { decodeTicket } from "../tickets.ts";
import type { HttpPool } from "./http.ts";
import { Tally } from "./tally.ts";
import { pause, type ServerClock } from "./target.ts";

const WAITING = 0, IN_FLIGHT = 1, ADMITTED = 2, GONE = 3;
/** After an error the visitor asks again this much later (server ms), as the wait page retries. */
const RETRY_MS = 5000;

const count = (m: Map<number, number>, k: number) => m.set(k, (m.get(k) ?? 0) + 1);

/** Follows the timeslots of the visitors added to it. */
export class Follower {
  readonly tally = new Tally();
  /** Status requests per server second of their timeslot (the load the schedule asks for). */
  readonly perSecond = new Map<number, number>();
  /** Status requests per server second in which they were sent (after any wait for a connection). */
  readonly sentPerSecond = new Map<number, number>();
  /** How late each request went out after its timeslot, in server ms. */
  readonly lateMs: number[] = [];
  /** Server time (ms) at which a visitor's answer said `admitted`, by visitor index. */
  readonly learned = new Map<number, number>();
  /** Called when a visitor learns it was admitted. */
  onAdmitted?: (i: number) => void;

  #tickets: string[] = [];
  #nca: number[] = [];
  #state: number[] = [];
  #buckets = new Map<number, number[]>();
  #due: number[] = [];
  #next: number;
  #inFlight = 0;
  #idle: (() => void) | null = null;
  #loop: Promise<void> | null = null;
  #running = false;

  constructor(
    private pool: HttpPool,
    private clock: ServerClock,
    private path = "/status?queue=default",
  ) {
    this.#next = Math.floor(clock.now() / 1000);
  }

  /** Visitors added so far. */
  get size(): number {
    return this.#tickets.length;
  }

  /** Follows a visitor from its ticket (its timeslot is the ticket's `nca`); returns its index. */
  add(ticket: string, nca = decodeTicket(ticket).nca): number {
    const i = this.#tickets.length;
    this.#tickets.push(ticket);
    this.#nca.push(nca);
    this.#state.push(WAITING);
    this.#schedule(i, nca);
    return i;
  }

  /** The visitor's current ticket. */
  ticket(i: number): string {
    return this.#tickets[i];
  }

  /** True while the visitor waits with no request in flight (so it can leave cleanly). */
  idle(i: number): boolean {
    return this.#state[i] === WAITING;
  }

  /** Stops following a visitor (it left); returns its ticket. */
  drop(i: number): string {
    this.#state[i] = GONE;
    return this.#tickets[i];
  }

  #schedule(i: number, nca: number): void {
    this.#nca[i] = nca;
    const sec = Math.floor(nca / 1000);
    if (sec < this.#next) return void this.#due.push(i);
    let b = this.#buckets.get(sec);
    if (!b) this.#buckets.set(sec, b = []);
    b.push(i);
  }

  /** Starts sending each visitor's status at its timeslot. */
  start(): void {
    this.#running = true;
    this.#loop = (async () => {
      while (this.#running) {
        this.#pump();
        await pause(2);
      }
    })();
  }

  /** Stops sending and waits for the answers still outstanding. */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
    if (this.#inFlight > 0) await new Promise<void>((r) => (this.#idle = r));
  }

  #pump(): void {
    const nowSec = Math.floor(this.clock.now() / 1000);
    const due = this.#due;
    this.#due = [];
    for (const i of due) this.#fire(i);
    for (; this.#next <= nowSec; this.#next++) {
      const b = this.#buckets.get(this.#next);
      if (!b) continue;
      this.#buckets.delete(this.#next);
      for (const i of b) this.#fire(i);
    }
  }

  #fire(i: number): void {
    if (this.#state[i] !== WAITING) return;
    this.#state[i] = IN_FLIGHT;
    this.#inFlight++;
    const nca = this.#nca[i];
    this.pool.request({ method: "GET", path: this.path, ticket: this.#tickets[i] }).then((a) => {
      const sent = this.clock.at(a.sentAt);
      count(this.perSecond, Math.floor(nca / 1000));
      count(this.sentPerSecond, Math.floor(sent / 1000));
      this.lateMs.push(sent - nca);
      const outcome = this.tally.add(a);
      if (a.ticket) this.#tickets[i] = a.ticket;
      if (this.#state[i] === IN_FLIGHT) this.#answered(i, a.status, a.body, outcome, a);
      if (--this.#inFlight === 0 && this.#idle) this.#idle();
    });
  }

  #answered(
    i: number,
    status: number,
    body: string,
    outcome: string,
    a: { sentAt: number; ms: number },
  ): void {
    if (status === 200) {
      const view = JSON.parse(body);
      if (view.status === "admitted") {
        this.#state[i] = ADMITTED;
        this.learned.set(i, this.clock.at(a.sentAt + a.ms));
        this.onAdmitted?.(i);
        return;
      }
      this.#state[i] = WAITING;
      return this.#schedule(i, view.nextCheckAt);
    }
    if (outcome === "404 not_in_queue") return void (this.#state[i] = GONE);
    this.#state[i] = WAITING;
    this.#schedule(i, this.clock.now() + RETRY_MS);
  }
}
