import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";
import { spawnServer, stopServers, waitReady } from "../testing/procs.ts";

const mainUrl = new URL("../main.ts", import.meta.url).pathname;

async function runMain(env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", mainUrl],
    env: { ...env, PORT: "0" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr).trim() };
}

Deno.test("a bad variable stops the start with one line naming it", async () => {
  for (
    const [name, value] of [
      ["CAPACITY", "abc"],
      ["ADMIT_PER_SECOND", "0"],
      ["QUEUES", "Bad!"],
      ["ADMISSION_MODE", "fifo"],
    ]
  ) {
    const r = await runMain({ [name]: value, DENO_KV_PATH: ":memory:" });
    assertEquals(r.code, 1, `${name}=${value} must stop the start`);
    assertEquals(r.stderr.split("\n").length, 1, `one line for ${name}: ${r.stderr}`);
    assert(r.stderr.includes(name), `the line names ${name}: ${r.stderr}`);
  }
});

Deno.test("production refuses to start without TOKEN_SECRET and never prints a given secret", async () => {
  const r = await runMain({ TOLLGATE_ENV: "production", DENO_KV_PATH: ":memory:" });
  assertEquals(r.code, 1);
  assert(r.stderr.includes("TOKEN_SECRET"));
  const short = await runMain({ TOKEN_SECRET: "too-short-secret", DENO_KV_PATH: ":memory:" });
  assertEquals(short.code, 1);
  assert(!short.stderr.includes("too-short-secret"), "the secret value is never echoed");
});

Deno.test("the first request of a new second runs the admission tick", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1 }, { autoTick: true });
  const a = new Client(t.app), b = new Client(t.app);
  assertEquals((await a.join()).status, 200);
  assertEquals((await b.join()).status, 202);
  t.clock.advance(1000);
  await a.status(); // any visitor request in the new second starts the tick
  for (let i = 0; i < 300 && (await t.engine.metrics("default")).waiting > 0; i++) {
    await new Promise((r) => setTimeout(r, 10));
    t.engine.ctx.invalidate("default");
  }
  const m = await t.engine.metrics("default");
  assertEquals([m.waiting, m.holding + m.entered], [0, 2]);
  t.close();
});

Deno.test("a client-address header without TRUSTED_PROXIES is warned about at start", async () => {
  // A sweep set CLIENT_IP_HEADER=x-forwarded-for alone: every X-Forwarded-For value took a new
  // per-client allowance, and nothing said so. The start now says it, and not when proxies are set.
  const started = async (env: Record<string, string>) => {
    const s = spawnServer({ DENO_KV_PATH: ":memory:", ...env });
    try {
      await waitReady(s);
    } finally {
      await stopServers([s]);
      await s.done;
    }
    return s.log.join("");
  };
  const open = await started({ CLIENT_IP_HEADER: "x-forwarded-for" });
  assert(/client address header trusted from every peer.*TRUSTED_PROXIES/.test(open), open);
  const closed = await started({
    CLIENT_IP_HEADER: "x-forwarded-for",
    TRUSTED_PROXIES: "127.0.0.1",
  });
  assert(!closed.includes("trusted from every peer"), closed);
});
