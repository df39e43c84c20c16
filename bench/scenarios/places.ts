/**
 * A place nobody loses (issue 32), on a real server process over HTTP: visitors join over a
 * minute and follow their timeslots as the wait page does; at a random moment of its wait a share
 * goes silent for two minutes and then checks in again at once (a phone out of a tunnel), a share
 * moves its place to a second device with a resume code (the first keeps checking in until it is
 * told), a share asks for the turn e-mail (delivered to a real SMTP server on loopback, Debian's
 * aiosmtpd), and a share really leaves. The queue's grace and the server's tokens are short so
 * slots free and the leavers' places end within the run. The server counts its own KV commits per
 * visitor (commit_tally.ts as a `--preload`). The driver reads the KV file beside the server: each
 * visitor's record when it learns its admission, and every second the records of the silent and
 * the gone, to see when they were admitted or dropped. Checks: places_checks.ts.
 */
import { haveAiosmtpd, type SmtpServer, startSmtpServer } from "../../testing/smtp_server.ts";
import { makeApp } from "../../testing/app.ts";
import { decodeTicket } from "../tickets.ts";
import { readTally, type TallyFile } from "./commit_tally.ts";
import { type Answer, type Call, HttpPool } from "./http.ts";
import {
  type PlacesOptions,
  type Planned,
  planPlaces,
  type VisitorOutcome,
} from "./places_plan.ts";
import { PlacesWatch } from "./places_watch.ts";
import { doctor, type DoctorReport } from "./store.ts";
import { Tally, type TallySummary } from "./tally.ts";
import { pause, type ScenarioEnv, type ServerErrors, serverErrors, startTarget } from "./target.ts";

/** What the places scenario measured. */
export interface PlacesReport {
  options: PlacesOptions;
  visitors: VisitorOutcome[];
  /** The most slots held at once (entered plus holding), polled from /metrics every second. */
  maxHeld: number;
  maxSilent: number;
  /** /metrics at the end. */
  returned: number;
  abandoned: number;
  /** Turn e-mails the SMTP server received, by recipient; null: no SMTP server (skipped). */
  mails: Record<string, number> | null;
  commits: TallyFile | null;
  requests: Record<string, TallySummary>;
  serverErrors: ServerErrors;
  doctor: DoctorReport;
  /** Server seconds from the first join to the end. */
  seconds: number;
}

const Q = "default";

/** Plays the plan against one server; see the header. */
export async function placesScenario(e: ScenarioEnv, o: PlacesOptions): Promise<PlacesReport> {
  const plan = planPlaces(o);
  const kvPath = `${e.dir}/places.kv`;
  const tallyPath = `${e.dir}/places-commits.json`;
  const server = {
    CAPACITY: String(o.capacity),
    ADMIT_PER_SECOND: String(o.rate),
    ACCESS_TOKEN_TTL_SECONDS: String(o.tokenTtlSec),
    MAX_WAITING_VISITORS: String(o.visitors * 2),
  };
  // The grace is a queue setting: written into the store before the server starts.
  const setup = await makeApp({
    CAPACITY: o.capacity,
    ADMIT_PER_SECOND: o.rate,
    MAX_WAITING_VISITORS: o.visitors * 2,
  }, { kv: await Deno.openKv(kvPath) });
  await setup.engine.updateSettings(Q, (s) => void (s.returnGraceSeconds = o.graceSec));
  await setup.setBranding({ admitHoldSeconds: o.holdSec });
  setup.close();
  const smtp: SmtpServer | null = o.mailShare > 0 && await haveAiosmtpd()
    ? await startSmtpServer()
    : null;
  const mailEnv: Record<string, string> = smtp
    ? {
      SMTP_HOST: "127.0.0.1",
      SMTP_PORT: String(smtp.port),
      SMTP_TLS: "none",
      MAIL_AT_POSITION: String(o.mailAtPosition),
    }
    : {};
  const t = await startTarget(
    e,
    "places",
    kvPath,
    {
      ...server,
      ...mailEnv,
      SMTP_FROM: "room@example.test",
      TOLLGATE_COMMIT_TALLY: tallyPath,
    },
    o.clockSpeed,
    ["--preload", "bench/scenarios/commit_tally.ts"],
  );
  const kv = await Deno.openKv(kvPath);
  const pool = new HttpPool(t.url, o.connections);
  const clock = t.clock;
  const sleepUntil = (serverMs: number) => pause(clock.msUntil(serverMs));
  const tallies = new Map<string, Tally>();
  const send = async (kind: string, c: Call): Promise<Answer> => {
    const a = await pool.request(c);
    if (!tallies.has(kind)) tallies.set(kind, new Tally());
    tallies.get(kind)!.add(a);
    return a;
  };
  const parse = (a: Answer) => {
    try {
      return JSON.parse(a.body);
    } catch {
      return {};
    }
  };
  const metrics = async () => {
    const m = await send("GET /metrics", {
      method: "GET",
      path: `/metrics?queue=${Q}`,
      bearer: t.secret,
    });
    return m.status === 200 ? parse(m) : null;
  };
  const w = new PlacesWatch(kv, Q, o.graceSec, clock, metrics);
  let done = false;

  const start = clock.now() + 2000;
  const learned = async (v: VisitorOutcome) => {
    v.learnedAt = clock.now();
    await w.look(v);
  };
  const status = (ticket: string) =>
    send("GET /status", { method: "GET", path: `/status?queue=${Q}`, ticket });

  /** The first device of a moved place: checks in until it is told, never let in. */
  const oldDevice = async (v: VisitorOutcome, ticket: string, nca: number) => {
    for (;;) {
      await sleepUntil(Math.max(nca, clock.now() + 500));
      if (done) return;
      const a = await send("GET /status (moved-from device)", {
        method: "GET",
        path: `/status?queue=${Q}`,
        ticket,
      });
      const b = parse(a);
      if (a.status === 409 && b.error?.code === "place_moved") return void (v.oldTold = true);
      if (b.accessToken) return void (v.oldAdmitted = true);
      if (a.status === 404) return;
      nca = b.nextCheckAt ?? clock.now() + 1000;
    }
  };

  /**
   * Away for the silence (nothing sent), then back: at once by the turn e-mail's link when
   * `mailTo` is given and the e-mail comes first, else with a check-in of its own.
   */
  const away = async (v: VisitorOutcome, ticket: string, mailTo?: string) => {
    v.silentFrom = clock.now();
    w.watched.set(v.id, v);
    const back = v.silentFrom + o.silenceSec * 1000;
    let code: string | undefined;
    while (clock.now() < back && !code) {
      if (!mailTo || !smtp) await sleepUntil(back);
      else {
        const mail = smtp.mails.find((m) => m.headers.to === mailTo);
        code = /[?&]resume=([A-Z0-9]+)/.exec(mail?.text ?? "")?.[1];
        if (!code) await pause(Math.min(200, clock.msUntil(back)));
      }
    }
    const r = await w.look(v);
    v.returnState = !r ? "gone" : r.state === "waiting" ? "waiting" : "admitted";
    w.watched.delete(v.id);
    let a: Answer;
    if (code) {
      v.mailArrivedAt = clock.now();
      a = await send("POST /resume (e-mail link)", {
        method: "POST",
        path: "/resume",
        body: JSON.stringify({ queue: Q, code }),
      });
      v.resumedByMail = a.status === 200 && a.ticket !== undefined;
      ticket = a.ticket ?? ticket;
    } else a = await status(ticket);
    v.returnAt = clock.now();
    return { a, ticket };
  };

  /** Does the visitor's one thing; returns the answer to continue from (null: it stopped). */
  const act = async (p: Planned, v: VisitorOutcome, ticket: string, i: number) => {
    if (p.kind === "leave") {
      v.leftAt = clock.now();
      w.watched.set(v.id, v);
      return null;
    }
    if (p.kind === "silent") return await away(v, ticket);
    if (p.kind === "move") {
      const c = await send("POST /resume/code", {
        method: "POST",
        path: "/resume/code",
        body: JSON.stringify({ queue: Q }),
        ticket,
      });
      const code = parse(c).code;
      if (!code) return { a: c, ticket };
      const a = await send("POST /resume", {
        method: "POST",
        path: "/resume",
        body: JSON.stringify({ queue: Q, code }),
      });
      if (!a.ticket) return { a, ticket };
      v.movedAt = clock.now();
      v.oldTold = false;
      v.oldAdmitted = false;
      void oldDevice(v, ticket, clock.now());
      return { a, ticket: a.ticket };
    }
    v.mailAddress = `visitor-${i}@example.test`;
    const a = await send("POST /turn-email", {
      method: "POST",
      path: "/turn-email",
      body: JSON.stringify({ queue: Q, email: v.mailAddress }),
      ticket,
    });
    v.mailAsked = a.status === 200;
    return v.mailAsked ? await away(v, ticket, v.mailAddress) : null;
  };

  const visitor = async (p: Planned, i: number): Promise<VisitorOutcome> => {
    const v: VisitorOutcome = { kind: p.kind, id: "", joinedAt: 0, lost: false };
    await sleepUntil(start + p.joinAtSec * 1000);
    v.joinedAt = clock.now();
    let a = await send("POST /join", { method: "POST", path: "/join", body: `{"queue":"${Q}"}` });
    let ticket = a.ticket;
    if (!ticket) return v;
    v.id = decodeTicket(ticket).sub;
    let body = parse(a);
    const actAt = v.joinedAt + p.actAfterSec * 1000;
    let acted = p.kind === "plain";
    while (!done) {
      if (body.accessToken) return await learned(v), v;
      if (a.status === 404) return (v.lost = true), v;
      const next = a.status === 200 || a.status === 202
        ? Math.max(body.nextCheckAt ?? 0, clock.now() + 200)
        : clock.now() + 1000;
      if (!acted && actAt <= next) {
        acted = true;
        await sleepUntil(actAt);
        const out = await act(p, v, ticket, i);
        if (out === null && p.kind === "leave") return v;
        if (out) ({ a, ticket } = out), body = parse(a);
        continue;
      }
      await sleepUntil(next);
      a = await status(ticket);
      ticket = a.ticket ?? ticket;
      body = parse(a);
    }
    return v;
  };

  const expectedEnd = start +
    (o.joinSeconds + o.visitors / o.rate + o.silenceSec + o.graceSec + 60) * 1000;
  e.log(`  places: ${plan.length} visitors, grace ${o.graceSec} s, speed ${o.clockSpeed}`);
  const watching = w.run();
  const all = Promise.all(plan.map(visitor));
  const timeout = sleepUntil(expectedEnd).then(() => null);
  let outcomes = await Promise.race([all, timeout]);
  // Leavers are done when their place was dropped (or freed after an admission they never saw).
  while (outcomes && w.leaversLeft) {
    if (clock.now() >= expectedEnd) break;
    await pause(200);
  }
  done = true;
  w.stop();
  outcomes ??= await all;
  await watching;
  const end = clock.now();
  if (smtp) await smtp.waitFor(outcomes.filter((v) => v.mailAsked && v.learnedAt).length, 5000);
  const returned = parse(
    await send("GET /metrics", { method: "GET", path: `/metrics?queue=${Q}`, bearer: t.secret }),
  );
  pool.close();
  kv.close();
  await t.proc.stop();
  await smtp?.stop();
  const mails = smtp ? {} as Record<string, number> : null;
  for (const m of smtp?.mails ?? []) mails![m.headers.to] = (mails![m.headers.to] ?? 0) + 1;
  return {
    options: o,
    visitors: outcomes,
    maxHeld: w.maxHeld,
    maxSilent: w.maxSilent,
    returned: returned.returned ?? 0,
    abandoned: returned.abandoned ?? 0,
    mails,
    commits: await readTally(tallyPath),
    requests: Object.fromEntries([...tallies].map(([k, x]) => [k, x.summary()])),
    serverErrors: await serverErrors(t),
    doctor: await doctor(kvPath),
    seconds: (end - start) / 1000,
  };
}
