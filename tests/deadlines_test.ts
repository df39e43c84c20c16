/** The shared deadline timer (lib/deadlines.ts): fires once past the end, never after a cancel. */
import { assert, assertEquals } from "../testing/assert.ts";
import { GRAIN_MS, onDeadline } from "../lib/deadlines.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("a deadline fires once, after its end and within a grain or two of it", async () => {
  const start = Date.now();
  const fired: number[] = [];
  let resolve = () => {};
  const done = new Promise<void>((r) => resolve = r);
  // The shared timer keeps nothing alive by itself; the watched work does (here, this timer).
  const work = setTimeout(() => {}, 1000);
  onDeadline(start + 120, () => {
    fired.push(Date.now());
    resolve();
  });
  await done;
  await sleep(3 * GRAIN_MS); // a second firing would show up here
  clearTimeout(work);
  assertEquals(fired.length, 1);
  assert(fired[0] >= start + 120, `fired ${fired[0] - start} ms after the start, before its end`);
  assert(fired[0] <= start + 120 + 4 * GRAIN_MS, `fired ${fired[0] - start - 120} ms late`);
});

Deno.test("a cancelled deadline never fires; the others around it still do", async () => {
  const start = Date.now();
  const seen: string[] = [];
  const cancel = onDeadline(start + 60, () => seen.push("cancelled"));
  onDeadline(start + 80, () => seen.push("kept"));
  cancel();
  cancel(); // twice is harmless
  await sleep(80 + 4 * GRAIN_MS);
  assertEquals(seen, ["kept"]);
});
