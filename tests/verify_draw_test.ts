/**
 * `deno task verify-draw`: checks a published draw from a real server over loopback and from a
 * file, fails a tampered record, and finds an arrival number's place.
 */
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const Q = "default";

async function verify(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "verify-draw", ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, text: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

Deno.test("verify-draw checks a served record and a saved one, and fails a tampered one", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 5 });
  const opensAt = t.clock.now() + 60_000;
  await t.engine.setOpensAt(Q, opensAt);
  await t.engine.setPrequeue(Q, 10);
  for (let i = 0; i < 25; i++) await t.engine.join(Q, null);
  t.clock.ms = opensAt;
  await t.engine.drawIfDue(Q);
  await t.kv.set(keys.drawPublished(Q), true);
  const ac = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: ac.signal, onListen: () => {} },
    t.fetch,
  );
  const url = `http://127.0.0.1:${server.addr.port}/draw?queue=${Q}`;
  try {
    let r = await verify(url, "--arrival", "3");
    assertEquals(r.code, 0, r.text);
    assert(r.text.includes("the draw checks out"), r.text);
    assert(/arrival number 3 was drawn to place \d+ of 25/.test(r.text), r.text);
    const rec = await (await fetch(url)).json();
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(`${dir}/good.json`, JSON.stringify(rec));
    assertEquals((await verify(`${dir}/good.json`)).code, 0);
    const swapped = [...rec.order];
    [swapped[0], swapped[1]] = [swapped[1], swapped[0]];
    await Deno.writeTextFile(`${dir}/bad.json`, JSON.stringify({ ...rec, order: swapped }));
    r = await verify(`${dir}/bad.json`);
    assertEquals(r.code, 1, r.text);
    assert(r.text.includes("FAIL the order recomputed"), r.text);
    await Deno.writeTextFile(`${dir}/seed.json`, JSON.stringify({ ...rec, seed: "0".repeat(64) }));
    r = await verify(`${dir}/seed.json`);
    assertEquals(r.code, 1);
    assert(r.text.includes("FAIL SHA-256(seed) equals the commitment"), r.text);
    r = await verify(`http://127.0.0.1:${server.addr.port}/draw?queue=nope`);
    assertEquals(r.code, 2, r.text);
    assert(r.text.includes("404"), r.text);
    await Deno.remove(dir, { recursive: true });
  } finally {
    ac.abort();
    await server.finished;
    t.close();
  }
});
