/**
 * A rollout: a previous release and this code serve side by side on ONE store, as old and new
 * revisions do while Deno Deploy (or a one-by-one restart) moves traffic over. Each starts and
 * migrates the store (no migration since 0.6.0, so neither rewrites what the other reads), joins
 * go to both, each waiter checks in (and so enters) through the other, both tick. Afterwards the
 * counters equal a recount, nobody was admitted twice, and the answers of this code were exact.
 * Run against 0.6.0 and 0.7.1, whose enters write the counts where this code's write a sum beside
 * them (lib/queue/enters.ts), and against 0.7.2, the release before this code, which hands joins
 * over only where its commits take 40 ms or more (this code wherever another instance is about).
 *
 * The previous releases are taken from this repository's history (`git archive`), so the test
 * needs the git history of the checkout.
 */
import { diagnose } from "../lib/queue/doctor.ts";
import { keys } from "../lib/store/keys.ts";
import { SCHEMA_VERSION } from "../lib/store/migrate.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { claimsOf, freePort, sleep } from "./server_procs.ts";

/** Previous releases (their last commits): 0.7.2 is the one before this code. */
const PREVIOUS = [
  { release: "0.6.0", commit: "6080276" },
  { release: "0.7.1", commit: "339268f" },
  { release: "0.7.2", commit: "322b18e" },
];
const ROOT = new URL("..", import.meta.url).pathname;
const SECRET = "rollout-test-secret-0123456789abcdefghij";

/** True when the checkout holds `commit` (a shallow clone may not). */
function inHistory(commit: string): boolean {
  const found = new Deno.Command("git", {
    args: ["-C", ROOT, "cat-file", "-e", `${commit}^{commit}`],
    stdout: "null",
    stderr: "null",
  }).outputSync().success;
  if (!found) console.warn(`rollout test skipped: commit ${commit} is not in this clone's history`);
  return found;
}

async function unpack(commit: string, dir: string): Promise<void> {
  const archive = new Deno.Command("git", {
    args: ["-C", ROOT, "archive", commit],
    stdout: "piped",
  }).spawn();
  const tar = new Deno.Command("tar", { args: ["-x", "-C", dir], stdin: "piped" }).spawn();
  await archive.stdout.pipeTo(tar.stdin);
  assert((await archive.status).success, `git archive ${commit}`);
  assert((await tar.status).success, "tar -x");
}

interface Proc {
  port: number;
  child: Deno.ChildProcess;
}

async function serve(dir: string, kvPath: string): Promise<Proc> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: dir,
    env: {
      DENO_KV_PATH: kvPath,
      TOKEN_SECRET: SECRET,
      PORT: String(port),
      QUEUES: "default",
      TOLLGATE_ENV: "test",
      ADMIT_PER_SECOND: "5",
      CAPACITY: "30",
      JOINS_PER_CLIENT_PER_MINUTE: "0", // one loopback client makes every join
    },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  for (let i = 0; i < 300; i++) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      await r.body?.cancel();
      if (r.ok) return { port, child };
    } catch { /* not up yet */ }
    await sleep(100);
  }
  throw new Error(`server in ${dir} did not start`);
}

async function call(p: Proc, method: string, path: string, ticket?: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (body) headers["content-type"] = "application/json";
  if (ticket) headers.cookie = `tg_ticket=${ticket}`;
  const r = await fetch(`http://127.0.0.1:${p.port}${path}`, {
    method,
    headers,
    body: body ? JSON.stringify(body) : undefined,
  });
  const set = r.headers.getSetCookie().find((c) => c.startsWith("tg_ticket="));
  return {
    status: r.status,
    json: await r.json(),
    ticket: set ? set.split(";")[0].slice("tg_ticket=".length) : ticket,
  };
}

for (const { release, commit } of PREVIOUS) {
  Deno.test({
    ignore: !inHistory(commit),
    name: `rollout: release ${release} and this code serve one store side by side`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: () => rollout(commit),
  });
}

async function rollout(commit: string): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tollgate-rollout-" });
  const old = `${dir}/previous`;
  await Deno.mkdir(old);
  await unpack(commit, old);
  const kvPath = `${dir}/shared.kv`;
  const procs: Proc[] = [];
  const exact: { seq: number; position: number }[] = [];
  try {
    // The old revision is serving when the new one starts (and migrates), as in a rollout.
    procs.push(await serve(old, kvPath));
    procs.push(await serve(ROOT, kvPath));
    const [prev, next] = procs;
    const waiting: { ticket: string; by: Proc }[] = [];
    const joins = Array.from({ length: 120 }, (_, i) => i);
    for (let i = 0; i < joins.length; i += 20) {
      await Promise.all(
        joins.slice(i, i + 20).map(async (n) => {
          const by = n % 2 ? next : prev;
          const j = await call(by, "POST", "/join", undefined, { queue: "default" });
          assert(j.status === 200 || j.status === 202, `join -> ${j.status}`);
          if (j.status === 202) {
            waiting.push({ ticket: j.ticket!, by });
            if (by === next) {
              exact.push({ seq: claimsOf(j.ticket!).seq as number, position: j.json.position });
            }
          }
        }),
      );
    }
    // A crowd at once through this code: more joins than one commit's mutations allow, while
    // the previous release writes the counts too (this code writes no chunks meanwhile).
    const crowd = await Promise.all(
      Array.from(
        { length: 600 },
        () => call(next, "POST", "/join", undefined, { queue: "default" }),
      ),
    );
    for (const j of crowd) {
      assert(j.status === 200 || j.status === 202, `join -> ${j.status}`);
      if (j.status === 202) {
        exact.push({ seq: claimsOf(j.ticket!).seq as number, position: j.json.position });
      }
    }
    // Every waiter checks in through the other revision for a few seconds; both tick.
    const until = Date.now() + 4000;
    let admittedSeen = 0;
    while (Date.now() < until) {
      for (const w of waiting) {
        const other = w.by === next ? prev : next;
        const s = await call(other, "GET", "/status?queue=default", w.ticket);
        assertEquals(s.status, 200, JSON.stringify(s.json));
        w.ticket = s.ticket!;
        if (s.json.status === "admitted") admittedSeen++;
      }
      await sleep(500);
    }
    assert(admittedSeen > 0, "admissions ran while both revisions served");
  } finally {
    for (const p of procs) {
      p.child.kill("SIGTERM");
      await p.child.status;
    }
  }
  const kv = await Deno.openKv(kvPath);
  try {
    assertEquals((await kv.get(keys.schemaVersion())).value, SCHEMA_VERSION);
    const d = await diagnose(kv, "default");
    assert(d.healthy, `counters equal a recount: ${JSON.stringify(d)}`);
    const c = withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts("default"))).value);
    let slots = 0;
    for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix("default") })) {
      if (e.value.state !== "waiting") slots++;
    }
    assertEquals(c.admitted, slots, "every admission holds one slot: nobody admitted twice");
    assert(c.holding + c.entered <= 30, "capacity held");
    assertEquals(c.nextSeq - 1, 720, "one arrival number per join");
    // Enters not taken in yet: never taken in twice (the sum would wrap past 2^63).
    const pending = (await kv.get<Deno.KvU64>(keys.entersPending("default"))).value?.value ?? 0n;
    assert(pending < 1000n, `pending enters ${pending}`);
    // This code's join answers were exact whoever else wrote (see multiprocess_positions_test).
    let prefix = 0;
    for (const a of exact.sort((x, y) => x.seq - y.seq)) {
      const before = a.seq - a.position;
      assert(before >= prefix && before <= c.admitted, `seq ${a.seq}: position ${a.position}`);
      prefix = before;
    }
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
