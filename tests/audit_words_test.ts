/**
 * Every action a route writes to the audit log has plain words in the Team tab's audit log
 * (client/admin/tabs/audit_words.ts), so no entry shows the operator a bare code such as
 * `queue.join-limits`. The actions are read from the routes' `audit()`, `change()` (per-queue
 * settings) and `signIn()` calls and the sign-in limits' entries.
 */
import { assert, assertEquals } from "./assert.ts";
import { AUDIT_WORDS } from "../client/admin/tabs/audit_words.ts";

const CALLS = [
  /\b(?:audit|change|signIn)\(\s*(?:[A-Za-z_.]+,\s*)*"([a-zA-Z][a-zA-Z0-9_.-]*)"/g,
  // The sign-in limits' entries (routes/admin/accounts_auth.ts): a default and an explicit one.
  /\baction = "([a-zA-Z][a-zA-Z0-9_.-]*)"/g,
  /\btripped\([^;]*?,\s*"([a-zA-Z][a-zA-Z0-9_.-]*)"\)/g,
];

async function auditedActions(dir: URL): Promise<Set<string>> {
  const found = new Set<string>();
  for await (const e of Deno.readDir(dir)) {
    const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) { for (const a of await auditedActions(url)) found.add(a); }
    else if (e.name.endsWith(".ts")) {
      const text = await Deno.readTextFile(url);
      for (const re of CALLS) for (const m of text.matchAll(re)) found.add(m[1]);
    }
  }
  return found;
}

Deno.test("every audited action has plain words in the audit log", async () => {
  const actions = await auditedActions(new URL("../routes/", import.meta.url));
  assert(actions.size > 40, `found only ${actions.size} audited actions: the scan is broken`);
  const sure = ["queue.rate", "session.login", "operator.pause", "login.rate_limited"];
  for (const known of sure) {
    assert(actions.has(known), `the scan misses ${known}`);
  }
  const missing = [...actions].filter((a) => !(a in AUDIT_WORDS)).sort();
  assertEquals(missing, [], "audited actions without words in client/admin/tabs/audit_words.ts");
  const unused = Object.keys(AUDIT_WORDS).filter((a) => !actions.has(a)).sort();
  assertEquals(unused, [], "words for actions no route audits any more");
});
