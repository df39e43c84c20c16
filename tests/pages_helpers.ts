/** Shared helpers of the page tests. */
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, operator, type TestApp } from "./helpers.ts";

export const Q = "default";

/** An app where the first visitor is admitted at once and everyone after waits. */
export async function waitingApp(overrides: Parameters<typeof makeApp>[0] = {}): Promise<TestApp> {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, ...overrides });
  const first = new Client(t.app);
  assertEquals((await first.join()).status, 200, "the first visitor takes the instant slot");
  return t;
}

/** The island props block of a /wait page. */
// deno-lint-ignore no-explicit-any
export function props(html: string): any {
  const m = html.match(/<script type="application\/json" id="tg-props">([^<]*)<\/script>/);
  assert(m, "no island props in the page");
  return JSON.parse(m[1]);
}

export function cookieAttrs(h: Headers, name: string): string[] | null {
  const sc = h.getSetCookie().find((c) => c.startsWith(`${name}=`));
  return sc ? sc.split(";").slice(1).map((s) => s.trim().toLowerCase()) : null;
}

/** Posts the no-JS enter form with the client's cookies. */
export function postEnter(c: Client, form: Record<string, string>) {
  return c.req("POST", "/wait/enter", new URLSearchParams(form).toString(), {
    "content-type": "application/x-www-form-urlencoded",
  });
}

export async function admit(t: TestApp, count = 1, queue = Q) {
  const r = await t.app.request("/admit", {
    method: "POST",
    headers: { ...operator(t.config), "content-type": "application/json" },
    body: JSON.stringify({ queue, count }),
  });
  assertEquals((await r.json()).admitted, count);
}

// ------------------------------------------------------------------ joining and resuming

/** Where an instantly admitted no-JS visitor of `/wait<query>` is sent. */
export async function landing(t: TestApp, query: string): Promise<string | null> {
  const r = await new Client(t.app).req("GET", `/wait${query}`);
  assertEquals(r.status, 303, `admitted at once for ${query}`);
  return r.headers.get("location");
}
