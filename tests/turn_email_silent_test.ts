/**
 * The turn e-mail beside a silent waiter (issue 32, found by `deno task load --scenario places`):
 * a waiter that asked for the e-mail and went silent keeps its place at the head of the line while
 * admissions pass over it, and the mail job, walking requests in line order, stopped at its
 * request: nobody admitted behind it got an e-mail until it came back or was dropped. Against a
 * real SMTP server (Debian's aiosmtpd on loopback), as tests/turn_email_test.ts. The silent waiter
 * itself gets the e-mail once its turn came while it was away (passed over, or back at the front
 * after an admission it never saw).
 */
import { haveAiosmtpd } from "../testing/smtp_server.ts";
import { assertEquals } from "./assert.ts";
import { Client } from "./helpers.ts";
import { Q, withMail } from "./mail_helpers.ts";
const ignore = !(await haveAiosmtpd());
if (ignore) console.warn("turn_email_silent_test: apt-get install python3-aiosmtpd to run it");

Deno.test({
  name: "a silent waiter's e-mail request holds back no e-mail of those admitted behind it",
  ignore,
  async fn() {
    await withMail({ ADMIT_PER_SECOND: 1 }, async (t, smtp) => { // paused: everyone waits
      const away = new Client(t.app), here = new Client(t.app);
      for (
        const [c, email] of [[away, "away@example.test"], [here, "here@example.test"]] as const
      ) {
        await c.join();
        t.clock.advance(1000);
        await t.engine.tick(Q); // numbered
        const saved = await c.req("POST", "/turn-email", { queue: Q, email });
        assertEquals(saved.status, 200, saved.text);
      }
      // `away` stops checking in until past its liveness deadline; `here` keeps checking in.
      const deadline = (await t.engine.visitor(Q, away.visitorId))!.deadline;
      while (t.clock.now() <= deadline + 1000) {
        t.clock.advance(1000);
        await t.engine.tick(Q);
        await here.req("GET", `/status?queue=${Q}`);
      }
      await t.engine.setPaused(Q, false);
      for (let i = 0; i < 3; i++) {
        t.clock.advance(1000);
        await t.engine.tick(Q);
      }
      assertEquals((await t.engine.visitor(Q, away.visitorId))?.state, "waiting", "place kept");
      assertEquals((await t.engine.visitor(Q, here.visitorId))?.state, "admitted");
      t.engine.ctx.invalidate(Q);
      await t.services.mailJob();
      // Both: `here` was admitted, and `away` was passed over while silent (its turn came; the
      // e-mail is how it learns, and its link brings it back to its kept place).
      const mails = await smtp.waitFor(2, 5000);
      assertEquals(mails.map((m) => m.headers["to"]).sort(), [
        "away@example.test",
        "here@example.test",
      ]);
    });
  },
});

Deno.test({
  name: "a visitor away when its turn came gets the e-mail while its place waits at the front",
  ignore,
  async fn() {
    await withMail({ ADMIT_PER_SECOND: 1 }, async (t, smtp) => { // paused: everyone waits
      const away = new Client(t.app);
      await away.join();
      t.clock.advance(1000);
      await t.engine.tick(Q); // numbered
      const saved = await away.req("POST", "/turn-email", { queue: Q, email: "away@example.test" });
      assertEquals(saved.status, 200, saved.text);
      // Its turn comes before the room can know it went silent: admitted, never told.
      await t.engine.setPaused(Q, false);
      for (let i = 0; i < 120; i++) {
        t.clock.advance(1000);
        await t.engine.tick(Q);
        // The mail job runs every second (as in the service); it must not send before the place
        // is known to wait for its visitor, and must send once it does.
        if (i > 100) await t.services.mailJob();
      }
      const rec = (await t.engine.visitor(Q, away.visitorId))!;
      assertEquals(rec.state, "waiting", "its place waits at the front");
      const mails = await smtp.waitFor(1, 5000);
      assertEquals(mails.map((m) => m.headers["to"]), ["away@example.test"]);
      // The e-mail carries the link that brings it back (tests/turn_email_test.ts follows one).
      const link = /\/wait\?queue=default&resume=([A-Z0-9-]+)/.exec(mails[0].text)?.[1];
      assertEquals(typeof link, "string", "a resume link in the e-mail");
    });
  },
});
