/**
 * `deno task verify-draw <url or file>`: recomputes a published opening draw (from
 * `GET /draw?queue=Q`, or a saved copy) and says whether it checks out; exit code 0 when it does,
 * 1 when it does not, 2 when the record cannot be read. Add `--arrival N` to see where arrival
 * number N was drawn.
 */
import { type PublicDraw, verifyDraw } from "../lib/queue/draw_scheme.ts";

/** Reads a record from an http(s) URL or a file path. */
async function load(src: string): Promise<Partial<PublicDraw>> {
  if (/^https?:\/\//.test(src)) {
    const res = await fetch(src, { headers: { accept: "application/json" } });
    const body = await res.json().catch(() => null);
    if (!res.ok) {
      throw new Error(`${src} answered ${res.status}: ${body?.error?.message ?? res.statusText}`);
    }
    return body;
  }
  return JSON.parse(await Deno.readTextFile(src));
}

if (import.meta.main) {
  const args = [...Deno.args];
  const at = args.indexOf("--arrival");
  const arrival = at >= 0 ? Number(args.splice(at, 2)[1]) : null;
  const src = args[0];
  if (!src) {
    console.error("usage: deno task verify-draw <url or file> [--arrival N]");
    Deno.exit(2);
  }
  let rec: Partial<PublicDraw>;
  try {
    rec = await load(src);
  } catch (e) {
    console.error(`cannot read the draw record: ${e instanceof Error ? e.message : e}`);
    Deno.exit(2);
  }
  const check = verifyDraw(rec);
  for (const l of check.lines) console.log(`${l.ok ? "ok  " : "FAIL"} ${l.text}`);
  if (check.ok && arrival !== null) {
    const i = rec.order!.indexOf(arrival);
    console.log(
      i < 0
        ? `arrival number ${arrival} is not in the list`
        : `arrival number ${arrival} was drawn to place ${i + 1} of ${rec.order!.length}`,
    );
  }
  console.log(check.ok ? "the draw checks out" : "the draw does NOT check out");
  Deno.exit(check.ok ? 0 : 1);
}
