/**
 * The script recipe for the built-in admin check in docs/rooms.md works as written: its solver,
 * run with `deno eval` on a puzzle from the service, gives the body that
 * `POST /api/admin/setup/challenge/builtin` accepts, and the contract says what `solution` and
 * `challengeResponse` hold (the JSON text of `{challenge, nonce}`; a new operator scripting the
 * setup found it written nowhere); a sign-in refused for want of it names the kind of check.
 */
import { adminClient, TEST_PASSWORD } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const root = new URL("../", import.meta.url);

Deno.test("docs: the built-in check's script recipe solves a setup puzzle", async () => {
  const doc = await Deno.readTextFile(new URL("docs/rooms.md", root));
  const code = doc.match(/SOLUTION=\$\(deno eval --ext=ts '([\s\S]*?)' "\$P"\)/)?.[1];
  assert(code, "docs/rooms.md has the solver");
  const t = await makeApp();
  try {
    const { client } = await adminClient(t);
    const puzzle = await client.req("GET", "/api/admin/challenge/puzzle?purpose=setup");
    assertEquals(puzzle.status, 200);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--ext=ts", code, puzzle.text],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    const body = JSON.parse(new TextDecoder().decode(out.stdout));
    const res = await client.req("POST", "/api/admin/setup/challenge/builtin", body);
    assertEquals([res.status, res.json.challenge?.builtin], [200, true], res.text);
    // Taken live, sign-in asks for it and names the kind, so a script knows what to solve.
    await client.req("POST", "/api/admin/setup/edge/none", {});
    assertEquals((await client.req("POST", "/api/admin/setup", {})).status, 200);
    const login = await client.req("POST", "/api/admin/login", {
      username: "admin",
      password: TEST_PASSWORD,
    });
    assertEquals([login.status, login.json.error.details], [401, {
      challenge: "required",
      kind: "builtin",
    }]);
    const contract = await Deno.readTextFile(new URL("openapi.yaml", root));
    for (const field of ["solution", "challengeResponse"]) {
      const at = contract.indexOf(`${field}:\n`);
      assert(at > 0 && contract.slice(at, at + 400).includes("{challenge, nonce}"), field);
    }
  } finally {
    t.close();
  }
});
