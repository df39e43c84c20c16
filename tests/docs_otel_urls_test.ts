/**
 * Deno's request spans carry the URL as sent, query and all (`url.full`, `url.query`): access
 * tokens (`?accessToken=`) and resume codes (`?resume=`) with it, and Tollgate cannot take them
 * out of Deno's span (a second attribute of the same name is exported beside the first). So the
 * collector configuration docs/observability.md gives must delete both on the way.
 */
import { parse } from "yaml";
import { assert, assertEquals } from "./assert.ts";

Deno.test("the documented collector configuration deletes url.full and url.query from traces", async () => {
  const doc = await Deno.readTextFile(new URL("../docs/observability.md", import.meta.url));
  const block = /To send traces to a collector[^`]*```yaml\n([\s\S]*?)```/.exec(doc);
  assert(block, "the collector configuration is in docs/observability.md");
  // deno-lint-ignore no-explicit-any
  const cfg: any = parse(block[1]);
  const used: string[] = cfg.service.pipelines.traces.processors ?? [];
  const deleted = used.flatMap((name) =>
    // deno-lint-ignore no-explicit-any
    (cfg.processors?.[name]?.actions ?? []).filter((a: any) => a.action === "delete")
      // deno-lint-ignore no-explicit-any
      .map((a: any) => a.key)
  );
  assertEquals(["url.full", "url.query"].filter((k) => !deleted.includes(k)), []);
});
