import { parse } from "yaml";
import { renderOpenApi } from "../scripts/openapi.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

Deno.test("openapi.yaml matches the route schemas (run `deno task openapi` after changing routes)", async () => {
  const onDisk = await Deno.readTextFile(new URL("../openapi.yaml", import.meta.url));
  assertEquals(onDisk, await renderOpenApi());
});

Deno.test("GET /openapi.json serves the same 3.1 contract with every visitor and operator path", async () => {
  const t = await makeApp();
  const res = await t.app.request("/openapi.json");
  assertEquals(res.status, 200);
  const doc = await res.json();
  assertEquals(doc.openapi, "3.1.0");
  const file = parse(await Deno.readTextFile(new URL("../openapi.yaml", import.meta.url)));
  assertEquals(doc, file);
  const want = [
    "post /join",
    "get /status",
    "post /leave",
    "post /heartbeat",
    "post /enter",
    "get /verify",
    "post /admit",
    "post /mode",
    "post /pause",
    "get /metrics",
    "get /health",
  ];
  for (const w of want) {
    const [m, p] = w.split(" ");
    assert(doc.paths[p]?.[m], `missing ${w} in the contract`);
  }
  t.close();
});
