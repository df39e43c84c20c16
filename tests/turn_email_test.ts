/**
 * The e-mail at a visitor's turn, against a real SMTP server (Debian's aiosmtpd on loopback): the
 * message arrives once, its link's code moves the place to a fresh browser, the address is gone
 * from the store once sent, and a server that is down is counted, retried and never slows a join.
 */
import { keys } from "../lib/store/keys.ts";
import { mailCounts } from "../lib/notify/mail_job.ts";
import { haveAiosmtpd, startSmtpServer } from "../testing/smtp_server.ts";
import { freePort, startServers, stopServers } from "../testing/procs.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";
import { mailingApp, Q, storedRequests, withMail } from "./mail_helpers.ts";

const ADDRESS = "ann@example.test";
const ignore = !(await haveAiosmtpd());
if (ignore) console.warn("turn_email_test: apt-get install python3-aiosmtpd to run these tests");

Deno.test({
  name: "the turn e-mail arrives once and its link moves the place to a fresh browser",
  ignore,
  async fn() {
    await withMail({}, async (t, smtp) => {
      const a = new Client(t.app);
      await a.join();
      const saved = await a.req("POST", "/turn-email", { queue: Q, email: ADDRESS });
      assertEquals([saved.status, saved.json.email], [200, "saved"], saved.text);
      const stored = await storedRequests(t.kv);
      assertEquals(stored.length, 1);
      assert(!JSON.stringify(stored[0].value).includes("ann@"), "the address is stored sealed");

      await t.services.mailJob();
      assertEquals(smtp.mails.length, 0, "not its turn yet");

      await t.engine.setPaused(Q, false);
      assertEquals(await t.engine.admit(Q, 1), 1);
      t.engine.ctx.invalidate(Q);
      await t.services.mailJob();
      const [mail] = await smtp.waitFor(1);
      assertEquals(mail.headers["to"], ADDRESS);
      assert(/It's your turn/.test(mail.headers["subject"]), mail.headers["subject"]);
      const link = /https?:\/\/\S+resume=([2-9A-Z]{8})/.exec(mail.text);
      assert(link, mail.text);
      assertEquals(await storedRequests(t.kv), [], "the address is deleted once sent");
      await t.services.mailJob();
      assertEquals(smtp.mails.length, 1, "sent once");
      assertEquals(await mailCounts(t.kv, Q), { sent: 1, failed: 0 });

      // The phone's mail app opens the link: a fresh browser takes the place and enters.
      const phone = new Client(t.app);
      const moved = await phone.req("POST", "/resume", { queue: Q, code: link[1] });
      assertEquals([moved.status, moved.json.status], [200, "admitted"], moved.text);
      assertEquals(moved.json.visitorId, a.visitorId);
      assert(phone.cookies.has("tg_access"));
    });
  },
});

Deno.test({
  name: "MAIL_AT_POSITION mails when the place comes that near the front",
  ignore,
  async fn() {
    await withMail({ MAIL_AT_POSITION: 2 }, async (t, smtp) => {
      const first = new Client(t.app), second = new Client(t.app), third = new Client(t.app);
      for (const c of [first, second, third]) await c.join();
      assertEquals(
        (await third.req("POST", "/turn-email", { queue: Q, email: ADDRESS })).status,
        200,
      );
      await t.services.mailJob();
      assertEquals(smtp.mails.length, 0, "third in line: not yet");
      await first.req("POST", "/leave", { queue: Q, visitorId: first.visitorId });
      t.engine.ctx.invalidate(Q);
      await t.engine.tick(Q);
      t.engine.ctx.invalidate(Q);
      await t.services.mailJob();
      const [mail] = await smtp.waitFor(1);
      assert(/Almost your turn/.test(mail.headers["subject"]), mail.headers["subject"]);
    });
  },
});

Deno.test("bad addresses get 400 naming the field; no SMTP server means no offer", async () => {
  const t = await mailingApp(freePort());
  const plain = await makeApp();
  try {
    const a = new Client(t.app);
    await a.join();
    const bad = await a.req("POST", "/turn-email", { queue: Q, email: "not-an-address" });
    assertEquals([bad.status, bad.json.error.details.fields[0].path], [400, "email"], bad.text);
    const b = new Client(plain.app);
    await b.join();
    const none = await b.req("POST", "/turn-email", { queue: Q, email: ADDRESS });
    assertEquals([none.status, none.json.error.code], [404, "not_found"]);
    // Taken back: the address is deleted.
    assertEquals((await a.req("POST", "/turn-email", { queue: Q, email: ADDRESS })).status, 200);
    assertEquals((await storedRequests(t.kv)).length, 1);
    assertEquals((await a.req("DELETE", "/turn-email", { queue: Q })).status, 200);
    assertEquals(await storedRequests(t.kv), []);
  } finally {
    t.close();
    plain.close();
  }
});

Deno.test("an SMTP server that does not answer is counted, never slows joins, never logs the address", async () => {
  // Accepts connections and says nothing: the send hangs until the server goes away.
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const c of silent) conns.push(c);
  })().catch(() => {});
  const t = await mailingApp((silent.addr as Deno.NetAddr).port);
  const logged: string[] = [];
  const error = console.error;
  console.error = (...a: unknown[]) => void logged.push(a.join(" "));
  try {
    const a = new Client(t.app);
    await a.join();
    await a.req("POST", "/turn-email", { queue: Q, email: ADDRESS });
    await t.engine.setPaused(Q, false);
    await t.engine.admit(Q, 1);
    t.engine.ctx.invalidate(Q);
    const job = t.services.mailJob();
    while (conns.length === 0) await new Promise((r) => setTimeout(r, 20));
    const started = performance.now();
    for (let i = 0; i < 20; i++) {
      const joined = await new Client(t.app).join(); // let in at once while budget is left
      assert([200, 202].includes(joined.status), joined.text);
    }
    assert(performance.now() - started < 2000, "joins are not held up by the send");
    for (const c of conns) c.close();
    silent.close();
    await job;
    assertEquals(await mailCounts(t.kv, Q), { sent: 1, failed: 1 });
    const kept = await storedRequests(t.kv);
    assertEquals(kept.length, 1, "kept for another try");
    assertEquals((kept[0].value as { failures: number }).failures, 1);
    assert(logged.some((l) => l.includes("turn e-mail failed")), logged.join("\n"));
    assert(!logged.some((l) => l.includes("ann@")), "the address is never logged");
  } finally {
    console.error = error;
    t.close();
    try {
      silent.close(); // closed already unless an assertion failed first
    } catch { /* closed */ }
    await accepting;
  }
});

Deno.test("the Prometheus exposition counts turn e-mails sent and failed", async () => {
  const t = await mailingApp(freePort());
  try {
    await t.kv.atomic().sum(keys.mailCount(Q, "sent"), 3n).sum(keys.mailCount(Q, "failed"), 1n)
      .commit();
    const res = await t.app.request("/metrics?format=prometheus", {
      headers: { authorization: `Bearer ${t.config.TOKEN_SECRET}` },
    });
    const text = await res.text();
    assert(
      text.includes('tollgate_queue_turn_emails_total{queue="default",event="sent"} 3'),
      text,
    );
    assert(text.includes('tollgate_queue_turn_emails_total{queue="default",event="failed"} 1'));
  } finally {
    t.close();
  }
});

Deno.test({
  name: "a pre-queue participant's request follows its drawn place, and lottery turns are found",
  ignore,
  async fn() {
    await withMail({ ADMIT_PER_SECOND: 10, CAPACITY: 1000 }, async (t, smtp) => {
      await t.engine.setPaused(Q, false);
      const opensAt = t.clock.now() + 60_000;
      await t.engine.setOpensAt(Q, opensAt);
      await t.engine.setPrequeue(Q, 30);
      const a = new Client(t.app);
      assertEquals((await a.join()).json.drawPending, true);
      assertEquals((await a.req("POST", "/turn-email", { queue: Q, email: ADDRESS })).status, 200);
      const pre = [];
      for await (const e of t.kv.list({ prefix: keys.mailSubPrePrefix(Q) })) pre.push(e);
      assertEquals(pre.length, 1, "kept apart until the draw");
      while (t.clock.now() < opensAt - 15_000) {
        const nca = (a.ticketClaims as unknown as { nca: number }).nca;
        t.clock.advance(Math.max(0, nca - t.clock.now()) + 1);
        await t.engine.tick(Q); // as the service does every second (it numbers the join)
        await a.status();
      }
      t.clock.advance(opensAt + 1000 - t.clock.now());
      await t.engine.tick(Q);
      await t.engine.drawIfDue(Q);
      t.engine.ctx.invalidate(Q);
      await t.services.mailJob();
      assertEquals((await storedRequests(t.kv)).length + smtp.mails.length, 1, "placed");
      for await (const _ of t.kv.list({ prefix: keys.mailSubPrePrefix(Q) })) {
        throw new Error("the pre-queue request should have moved to its drawn place");
      }
      t.clock.advance(1000);
      await t.engine.tick(Q);
      t.engine.ctx.invalidate(Q);
      await t.services.mailJob();
      assertEquals((await smtp.waitFor(1)).length, 1, "sent at its turn after the draw");

      // Lottery: no line order; requests are checked every fifth second.
      await t.engine.setMode(Q, "lottery");
      await t.engine.setPaused(Q, true);
      const b = new Client(t.app);
      await b.join();
      await b.req("POST", "/turn-email", { queue: Q, email: "bob@example.test" });
      await t.engine.setPaused(Q, false);
      await t.engine.admit(Q, 1);
      t.engine.ctx.invalidate(Q);
      t.clock.advance(5000 - (t.clock.now() % 5000));
      await t.services.mailJob();
      const mails = await smtp.waitFor(2);
      assertEquals(mails[1]?.headers["to"], "bob@example.test");
    });
  },
});

Deno.test({
  name: "main.ts runs the mail job beside the tick: a real server process sends the e-mail",
  ignore,
  sanitizeResources: false,
  async fn() {
    const smtp = await startSmtpServer();
    const secret = "main-test-secret-main-test-secret-0123456789";
    const [server] = await startServers(1, {
      DENO_KV_PATH: ":memory:",
      TOKEN_SECRET: secret,
      SMTP_HOST: "127.0.0.1",
      SMTP_PORT: String(smtp.port),
      SMTP_TLS: "none",
      SMTP_FROM: "Tollgate <queue@example.test>",
    });
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const op = { authorization: `Bearer ${secret}`, "content-type": "application/json" };
      const call = (path: string, body: unknown, headers: Record<string, string>) =>
        fetch(base + path, { method: "POST", headers, body: JSON.stringify(body) });
      await (await call("/pause", { queue: Q, paused: true }, op)).body?.cancel();
      const joined = await call("/join", { queue: Q }, { "content-type": "application/json" });
      await joined.body?.cancel();
      const cookie = joined.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const saved = await call("/turn-email", { queue: Q, email: ADDRESS }, {
        "content-type": "application/json",
        cookie,
      });
      assertEquals(saved.status, 200, await saved.text());
      await (await call("/pause", { queue: Q, paused: false }, op)).body?.cancel();
      await (await call("/admit", { queue: Q, count: 1 }, op)).body?.cancel();
      const [mail] = await smtp.waitFor(1, 20_000);
      assertEquals(mail?.headers["to"], ADDRESS);
    } finally {
      await stopServers([server]);
      await smtp.stop();
    }
  },
});
