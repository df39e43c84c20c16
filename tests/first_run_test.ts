/**
 * What `deno task start` tells a new operator: where the admin app is and how to get in (the
 * first visit asks for TOKEN_SECRET), and, once claimed, to sign in; a KV Connect store without
 * TOKEN_SECRET stops the start (each instance would make up its own secret and refuse the
 * others' tokens). Real processes of main.ts on a temporary KV file, stopped by the test.
 */
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";

const mainUrl = new URL("../main.ts", import.meta.url).pathname;

/** Starts main.ts with `env`; its stdout until the admin line (or its exit), then stops it. */
async function firstLines(env: Record<string, string>): Promise<string[]> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", mainUrl],
    env: { PORT: "0", NO_COLOR: "1", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines: string[] = [];
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  let rest = "";
  try {
    while (!lines.some((l) => l.includes('"msg":"admin app"'))) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += value;
      const parts = rest.split("\n");
      rest = parts.pop()!;
      lines.push(...parts);
    }
  } finally {
    clearTimeout(timer);
    try {
      child.kill("SIGTERM");
    } catch { /* exited already */ }
    await reader.cancel().catch(() => {});
    await child.status;
  }
  return lines;
}

/** The start's `admin app` log line, parsed. */
function adminLine(lines: string[]): { url: string; next: string } {
  const line = lines.find((l) => l.includes('"msg":"admin app"'));
  assert(line, lines.join("\n"));
  return JSON.parse(line);
}

Deno.test("the first start says where the admin app is and how to claim it; later starts too", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const env = { DENO_KV_PATH: `${dir}/data/waiting-room.kv` };
    const first = await firstLines(env);
    const secret = (await Deno.readTextFile(`${dir}/data/token-secret`)).trim();
    assert(first.some((l) => l.includes("Generated TOKEN_SECRET") && l.includes(secret)), "shown");
    const hint = adminLine(first);
    assert(/^http:\/\/localhost:\d+\/admin$/.test(hint.url), hint.url);
    assert(
      hint.next.startsWith("no admin account yet: open it, paste the TOKEN_SECRET"),
      hint.next,
    );
    assert(hint.next.includes(`${dir}/data/token-secret`), hint.next);
    assert(!first.find((l) => l.includes("admin app"))!.includes(secret), "never the secret");

    // Restarted before anyone claimed it: the secret is not shown again; the file is named.
    const again = await firstLines(env);
    assert(!again.some((l) => l.includes(secret)), again.join("\n"));
    assert(adminLine(again).next.includes("token-secret"));

    // Claimed (the marker the first account writes): sign in; behind a proxy, the public address.
    const kv = await Deno.openKv(env.DENO_KV_PATH);
    await kv.set(keys.adminClaimed(), { at: 0, userId: "u" });
    kv.close();
    const claimed = await firstLines({
      ...env,
      PUBLIC_URL: "https://queue.example.com",
      BASE_PATH: "/_tollgate",
    });
    const { url, next } = adminLine(claimed);
    assertEquals([url, next], [
      "https://queue.example.com/_tollgate/admin",
      "sign in with your admin account",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("with TOKEN_SECRET set the hint names it; a KV Connect store without one stops the start", async () => {
  const set = await firstLines({
    DENO_KV_PATH: ":memory:",
    TOKEN_SECRET: "first-run-test-secret-first-run-test-0123",
  });
  assert(adminLine(set).next.includes("paste the TOKEN_SECRET you set"));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", mainUrl],
    env: { PORT: "0", DENO_KV_PATH: "http://127.0.0.1:9/" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr).trim();
  assertEquals(out.code, 1, err);
  assertEquals(err.split("\n").length, 1, err);
  assert(err.startsWith("tollgate: invalid TOKEN_SECRET: required with a KV Connect store"), err);
});
