/**
 * The README's configuration table against the config schema, both ways: every variable it names
 * is read (and every one read is named: tests/docs_links_test.ts), each default it gives is the
 * parsed default, each range it gives is the range enforced, every numeric variable gives its
 * range, and a value out of it stops the start with a message naming the variable and the range.
 */
import { CONFIG_KEYS, ConfigError, parseEnv } from "../lib/config.ts";
import { assert, assertEquals } from "./assert.ts";

interface Row {
  names: string[];
  dflt: string;
  meaning: string;
}

/** The rows of the README's configuration table. */
async function rows(): Promise<Row[]> {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const from = readme.indexOf("\n## Configuration\n");
  const section = readme.slice(from, readme.indexOf("\n## ", from + 1));
  return section.split("\n").filter((l) => l.startsWith("| `")).map((l) => {
    const cells = l.split("|").map((c) => c.trim());
    return {
      names: [...cells[1].matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]),
      dflt: cells[2],
      meaning: cells[3],
    };
  });
}

/** The message `parseEnv` stops with for `name=value`, or null when it takes it. */
function refusal(name: string, value: string): string | null {
  try {
    parseEnv({ [name]: value });
    return null;
  } catch (e) {
    assert(e instanceof ConfigError, String(e));
    return e.message;
  }
}

/** A parsed default as the table writes it (switches as 0/1 or false/true, lists comma-joined). */
function shown(v: unknown): string[] {
  if (v === true) return ["1", "true"];
  if (v === false) return ["0", "false"];
  if (Array.isArray(v)) return [v.join(",")];
  return [String(v)];
}

Deno.test("every variable the README's table names is read, with the default it gives", async () => {
  const defaults = parseEnv({}) as Record<string, unknown>;
  for (const row of await rows()) {
    for (const name of row.names) {
      assert((CONFIG_KEYS as string[]).includes(name), `${name} is documented but never read`);
      const literal = /^`([^`]+)`$/.exec(row.dflt);
      // Speed 1 is the clock as it is (the variable unset); the rest must be the parsed value.
      if (!literal || name === "TOLLGATE_CLOCK_SPEED") continue;
      assert(
        shown(defaults[name]).includes(literal[1]),
        `${name}: the table says ${literal[1]}, the schema ${JSON.stringify(defaults[name])}`,
      );
    }
  }
});

Deno.test("every numeric variable documents its range, and values outside it are refused by name", async () => {
  for (const row of await rows()) {
    const range = /\((?:[^()]*; )?(\d+(?:\.\d+)?) to (\d+(?:\.\d+)?)/.exec(row.meaning);
    for (const name of row.names) {
      const numeric = /number/.test(refusal(name, "abc") ?? "");
      if (!numeric) continue;
      assert(range, `${name} is numeric but its row gives no range: ${row.meaning}`);
      const [lo, hi] = [Number(range[1]), Number(range[2])];
      for (const ok of [range[1], range[2]]) {
        assertEquals(refusal(name, ok), null, `${name}=${ok} is in the documented range`);
      }
      const whole = Number.isInteger(lo) && Number.isInteger(hi);
      const below = whole ? lo - 1 : lo / 2;
      for (const bad of [below, whole ? hi + 1 : hi * 2]) {
        if (bad < 0) continue; // "-1" is refused as no number at all, checked below
        const said = refusal(name, String(bad));
        assert(said, `${name}=${bad} is outside the documented range but accepted`);
        assert(said.startsWith(`invalid ${name}=`), said);
        assert(said.includes(`from ${range[1]} to ${range[2]}`), `${name}: ${said}`);
      }
      assert(refusal(name, "-1")!.includes(`from ${range[1]} to ${range[2]}`), name);
    }
  }
});

Deno.test("switches, choices and URLs say what they take", () => {
  assertEquals(
    refusal("STORE_FAILURE", "opn"),
    'invalid STORE_FAILURE="opn": must be one of: closed, open',
  );
  assertEquals(
    refusal("LOG_REQUESTS", "yes"),
    'invalid LOG_REQUESTS="yes": must be one of: 0, 1, false, true',
  );
  assertEquals(
    refusal("ORIGIN_URL", "ftp://origin.example"),
    'invalid ORIGIN_URL="ftp://origin.example": must be an http:// or https:// URL',
  );
  assertEquals(
    refusal("PUBLIC_URL", "queue.example.com"),
    'invalid PUBLIC_URL="queue.example.com": must be an http:// or https:// URL',
  );
  assert(refusal("DENO_KV_PATH", "  ")!.startsWith("invalid DENO_KV_PATH="));
});
