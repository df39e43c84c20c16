/**
 * A flood of refused joins costs no KV commit each: refusal statistics (the per-client limit's
 * 429s, challenge-required 403s) are summed in memory and written at most once a second per
 * instance. Counted through a proxy over a real in-memory KV that counts every commit.
 */
import { writeJoinGuards } from "../lib/guard/settings.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";

/** A real in-memory KV whose atomic commits (and plain writes) are counted. */
async function countedKv(): Promise<{ kv: Deno.Kv; commits: () => number }> {
  const kv = await Deno.openKv(":memory:");
  let n = 0;
  const proxy = new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => (n++, commit());
          return op;
        };
      }
      if (prop === "set" || prop === "delete") {
        const f = Reflect.get(target, prop, target) as (...a: unknown[]) => unknown;
        return (...a: unknown[]) => (n++, f.apply(target, a));
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { kv: proxy, commits: () => n };
}

function join(t: TestApp) {
  return t.fetch(
    new Request("http://tollgate.test/join", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ queue: "default" }),
    }),
    { remoteAddr: { transport: "tcp", hostname: "203.0.113.9", port: 1 } } as Deno.ServeHandlerInfo,
  );
}

/**
 * Sends refused joins from one address for `ms` of real time, `wave` at a time; returns how many
 * were refused with `code` and how many commits they made.
 */
async function flood(t: TestApp, commits: () => number, code: string, ms: number) {
  const wave = 50;
  const before = commits();
  const start = performance.now();
  let refused = 0;
  while (performance.now() - start < ms) {
    // Each wave in its own event-loop turn, as a server's requests arrive (commits complete).
    await new Promise((r) => setTimeout(r, 0));
    const answers = await Promise.all(Array.from({ length: wave }, () => join(t)));
    for (const r of answers) {
      const body = await r.json();
      assertEquals(body.error?.code, code, JSON.stringify(body));
      refused++;
    }
  }
  const seconds = (performance.now() - start) / 1000;
  return { refused, commits: commits() - before, seconds };
}

for (
  const [name, code, setUp] of [
    ["rate-limit", "rate_limited", async (t: TestApp) => {
      assertEquals((await join(t)).status, 202); // the allowance of one, spent
    }],
    ["challenge-required", "challenge_required", async (t: TestApp) => {
      await writeJoinGuards(t.kv, "default", { challenge: "on", difficulty: 5000 });
    }],
  ] as const
) {
  Deno.test(`refusal flood (${name}): at most one commit a second, every refusal counted`, async () => {
    const { kv, commits } = await countedKv();
    const t = await makeApp({ JOINS_PER_CLIENT_PER_MINUTE: 1 }, { kv });
    try {
      await t.engine.setPaused("default", true);
      await setUp(t);
      // A first refusal, so the flood below starts with the statistics already being written.
      await (await join(t)).body?.cancel();
      const f = await flood(t, commits, code, 1500);
      assert(f.refused >= 200, `only ${f.refused} refusals sent`);
      const bound = Math.ceil(f.seconds) + 1;
      assert(
        f.commits <= bound,
        `${f.refused} refusals in ${
          f.seconds.toFixed(1)
        } s made ${f.commits} commits (bound ${bound})`,
      );
      // Nothing lost: the statistics count every refusal once written.
      const counts = await t.services.guards.stats.lastHour("default");
      const counted = name === "rate-limit" ? counts.rateLimited : counts.challengesIssued;
      assertEquals(counted, f.refused + 1);
    } finally {
      await t.services.guards.stats.idle();
      t.close();
    }
  });
}
