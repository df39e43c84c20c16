/**
 * The queue doctor on a store the service is writing to: real joins and leaves land between the
 * doctor's listings (a wrapper around the real KV runs them as each listing starts). Nothing
 * healthy is reported, `live` says what happened, and a real fault is still found and repaired.
 */
import { diagnose, repairCounters } from "../lib/queue/doctor.ts";
import type { Counts } from "../lib/queue/types.ts";
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, type TestApp } from "./helpers.ts";

/** `kv`, but the first listing of each prefix named in `hooks` first runs that hook. */
function interleaved(kv: Deno.Kv, hooks: Map<string, () => Promise<void>>): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "list") {
        return (sel: { prefix: Deno.KvKey }, opts?: Deno.KvListOptions) => {
          const name = String(sel.prefix[0]);
          const hook = hooks.get(name);
          hooks.delete(name);
          return (async function* () {
            await hook?.();
            yield* target.list(sel, opts);
          })();
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

/** 2 entered and 3 waiting visitors (capacity 2), each with its own client. */
async function busyQueue() {
  const t = await makeApp({ CAPACITY: 2, ADMIT_PER_SECOND: 100 });
  const clients: Client[] = [];
  for (let i = 0; i < 5; i++) {
    const c = new Client(t.app);
    await c.join("default", `live-visitor-${i}`);
    clients.push(c);
  }
  await t.engine.tick("default");
  return { t, clients };
}

/** Changes a running service makes: a join before the visitors are listed and after, a leave. */
function traffic(t: TestApp, leaver: Client) {
  let n = 0;
  const join = async () => void await new Client(t.app).join("default", `live-newcomer-${n++}`);
  return new Map<string, () => Promise<void>>([
    ["v", join], // the counts were read, the visitors not yet
    ["w", join], // the visitors were listed, the line not yet
    [
      "d",
      async () =>
        void await leaver.req("POST", "/leave", { queue: "default", visitorId: leaver.visitorId }),
    ],
  ]);
}

Deno.test("doctor on a live store: changes in flight are not reported; it says the store was live", async () => {
  const { t, clients } = await busyQueue();
  const d = await diagnose(interleaved(t.kv, traffic(t, clients[4])), "default", { pauseMs: 20 });
  assertEquals([d.indexProblems, d.counterDiffs, d.healthy], [[], [], true]);
  assert(d.live, "the store changed while read");
  assert(d.transient >= 2, `transient ${d.transient}`);
  // The same store, quiet: healthy, and not live.
  const quiet = await diagnose(t.kv, "default", { pauseMs: 20 });
  assertEquals([quiet.healthy, quiet.live, quiet.transient], [true, false, 0]);
  t.close();
});

Deno.test("doctor on a live store: a real fault persists and is reported; repair writes only persisting counters", async () => {
  const { t, clients } = await busyQueue();
  // A lost line entry of a waiting visitor, and a waiting counter off by 5.
  const line = [];
  for await (const e of t.kv.list<string>({ prefix: keys.fifoPrefix("default") })) line.push(e);
  await t.kv.delete(line[0].key);
  const c = (await t.kv.get<Counts>(keys.counts("default"))).value!;
  await t.kv.set(keys.counts("default"), { ...c, waiting: c.waiting + 5 });

  const d = await diagnose(interleaved(t.kv, traffic(t, clients[4])), "default", { pauseMs: 20 });
  assertEquals(d.indexProblems, [`waiting visitor ${line[0].value} has no line entry`]);
  assertEquals(d.counterDiffs, ["waiting"]);
  assert(d.live);

  const r = await repairCounters(interleaved(t.kv, traffic(t, clients[3])), "default", 20, {
    pauseMs: 20,
  });
  assertEquals([r.repaired, r.counterDiffs], [true, ["waiting"]]);
  const after = await diagnose(t.kv, "default", { pauseMs: 20 });
  assertEquals(after.counterDiffs, [], "the counter is right again");
  assertEquals(after.indexProblems, [`waiting visitor ${line[0].value} has no line entry`]);
  t.close();
});
