/**
 * A rollout from release 0.7.3 (the release before this code) on ONE store: 0.7.3 numbered the
 * line in its join commits (with join turns, hand-overs and chunks of joins), this code numbers it
 * in its tick, so the rollout stops every 0.7.3 instance, then starts this code, which migrates
 * the store (its chunks expanded, its hand-over records deleted). Every waiter keeps its place and
 * its ticket; counts equal a recount. A store a 0.7.3 instance is still joining visitors on is
 * refused at start, with a message that says so.
 *
 * Release 0.7.3 is taken from this repository's history (`git archive`), so the test needs the git
 * history of the checkout.
 */
import { diagnose } from "../lib/queue/doctor.ts";
import { keys } from "../lib/store/keys.ts";
import { SCHEMA_VERSION } from "../lib/store/migrate.ts";
import { type Counts, EMPTY_COUNTS, withDefaults } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { claimsOf, freePort, sleep } from "./server_procs.ts";

/** Release 0.7.3's last commit. */
const PREVIOUS = { release: "0.7.3", commit: "b78fe1d" };
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

function spawn(dir: string, kvPath: string, port: number) {
  return new Deno.Command(Deno.execPath(), {
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
    stderr: "piped",
  }).spawn();
}

async function serve(dir: string, kvPath: string): Promise<Proc> {
  const port = freePort();
  const child = spawn(dir, kvPath, port);
  child.stderr.cancel().catch(() => {});
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

/** The previous release unpacked in a fresh directory, and where their shared store goes. */
async function previousRelease() {
  const dir = await Deno.makeTempDir({ prefix: "tollgate-rollout-" });
  const old = `${dir}/previous`;
  await Deno.mkdir(old);
  await unpack(PREVIOUS.commit, old);
  return { dir, old, kvPath: `${dir}/shared.kv` };
}

Deno.test({
  ignore: !inHistory(PREVIOUS.commit),
  name:
    `rollout: release ${PREVIOUS.release} stopped, then this code on its store: every place kept`,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { dir, old, kvPath } = await previousRelease();
    const waiting: { ticket: string; seq: number }[] = [];
    const prev = await serve(old, kvPath);
    try {
      // Joins and a crowd (more than one commit's mutations: 0.7.3 writes chunks of joins).
      for (let i = 0; i < 6; i++) {
        await Promise.all(Array.from({ length: 20 }, () => joinOn(prev, waiting)));
      }
      await Promise.all(Array.from({ length: 600 }, () => joinOn(prev, waiting)));
    } finally {
      prev.child.kill("SIGTERM");
      await prev.child.status;
    }
    // The turn 0.7.3 held lapses (a stopped instance's turn is not live after 10 s).
    await sleep(11_000);
    const next = await serve(ROOT, kvPath);
    try {
      for (const w of waiting.filter((_, i) => i % 37 === 0)) {
        const s = await call(next, "GET", "/status?queue=default", w.ticket);
        assertEquals(s.status, 200, JSON.stringify(s.json));
        if (s.json.status === "waiting") assert(s.json.position <= w.seq, JSON.stringify(s.json));
      }
      const j = await call(next, "POST", "/join", undefined, { queue: "default" });
      assertEquals(j.status, 202, "a new join waits behind the migrated line");
    } finally {
      next.child.kill("SIGTERM");
      await next.child.status;
    }
    const kv = await Deno.openKv(kvPath);
    try {
      assertEquals((await kv.get(keys.schemaVersion())).value, SCHEMA_VERSION);
      for await (const e of kv.list({ prefix: keys.joinLogPrefix("default") }, { limit: 1 })) {
        throw new Error(`a 0.7.3 chunk left: ${JSON.stringify(e.key)}`);
      }
      const d = await diagnose(kv, "default");
      assert(d.healthy, `counters equal a recount: ${JSON.stringify(d)}`);
      const c = withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts("default"))).value);
      assert(c.nextSeq - 1 >= 720, `every 0.7.3 join kept its number: ${c.nextSeq}`);
      assert(c.holding + c.entered <= 30, "capacity held");
    } finally {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  ignore: !inHistory(PREVIOUS.commit),
  name: `rollout: this code refuses to start beside a live ${PREVIOUS.release} instance`,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { dir, old, kvPath } = await previousRelease();
    const prev = await serve(old, kvPath);
    try {
      // A crowd: 0.7.3 keeps the join turn while it has joins, so its turn is live.
      const waiting: { ticket: string; seq: number }[] = [];
      await Promise.all(Array.from({ length: 300 }, () => joinOn(prev, waiting)));
      const child = spawn(ROOT, kvPath, freePort());
      const [status, err] = await Promise.all([
        child.status,
        new Response(child.stderr).text(),
      ]);
      assert(!status.success, "this code did not start");
      assert(err.includes("0.7.3 instance"), err.slice(-500));
      const kv = await Deno.openKv(kvPath);
      assertEquals((await kv.get(keys.schemaVersion())).value, 2, "the store untouched");
      kv.close();
    } finally {
      prev.child.kill("SIGTERM");
      await prev.child.status;
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** One join through `p`; a waiter's ticket and arrival number go into `waiting`. */
async function joinOn(p: Proc, waiting: { ticket: string; seq: number }[]): Promise<void> {
  const j = await call(p, "POST", "/join", undefined, { queue: "default" });
  assert(j.status === 200 || j.status === 202, `join -> ${j.status}`);
  if (j.status === 202) waiting.push({ ticket: j.ticket!, seq: claimsOf(j.ticket!).seq as number });
}
