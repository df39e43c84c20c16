import { COST_CSS } from "../routes/cost_page.tsx";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

async function get(path: string) {
  const t = await makeApp();
  try {
    const res = await t.app.request(path);
    const text = await res.text();
    // deno-lint-ignore no-explicit-any
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch { /* a page */ }
    return { status: res.status, headers: res.headers, text, json };
  } finally {
    t.close();
  }
}

Deno.test("cost estimate: defaults exactly as the documented table, both derived defaults", async () => {
  const r = await get("/api/cost-estimate");
  assertEquals(r.status, 200);
  // ceil(5000000 / 750) = ceil(6666.67) = 6667 > 5
  assertEquals(r.json.inputs, {
    visitors: 5000000,
    averageWaitSeconds: 900,
    pollingMode: "adaptive",
    pollIntervalSeconds: 6667,
    heartbeatIntervalSeconds: 0,
  });
  assertEquals(r.json.adaptive.chosen, true);
  assertEquals(r.json.fixed.chosen, false);
  // The mode not chosen uses its own defaults: fixed 15 s polls and 30 s heartbeats.
  assertEquals([r.json.fixed.pollIntervalSeconds, r.json.fixed.heartbeatIntervalSeconds], [15, 30]);
  assertEquals(r.headers.get("x-frame-options"), "SAMEORIGIN");

  const f = await get("/api/cost-estimate?pollingMode=fixed");
  assertEquals(f.json.inputs.pollIntervalSeconds, 15);
  assertEquals(f.json.inputs.heartbeatIntervalSeconds, 30);
  assertEquals([f.json.fixed.chosen, f.json.adaptive.chosen], [true, false]);
  assertEquals([f.json.adaptive.pollIntervalSeconds, f.json.adaptive.heartbeatIntervalSeconds], [
    6667,
    0,
  ]);
});

Deno.test("cost estimate: the adaptive period default is max(5, ceil(visitors / 750))", async () => {
  for (const [visitors, period] of [[1, 5], [3750, 5], [3751, 6], [750000, 1000], [100000, 134]]) {
    const r = await get(`/api/cost-estimate?visitors=${visitors}`);
    assertEquals(r.json.inputs.pollIntervalSeconds, period, `visitors=${visitors}`);
  }
});

Deno.test("cost estimate: each parameter is parsed and used", async () => {
  const r = await get(
    "/api/cost-estimate?visitors=1234&averageWaitSeconds=60&pollingMode=fixed" +
      "&pollIntervalSeconds=20&heartbeatIntervalSeconds=45",
  );
  assertEquals(r.status, 200);
  assertEquals(r.json.inputs, {
    visitors: 1234,
    averageWaitSeconds: 60,
    pollingMode: "fixed",
    pollIntervalSeconds: 20,
    heartbeatIntervalSeconds: 45,
  });
  assertEquals(r.json.fixed.requests.status, 1234 * 3); // 60 s / 20 s
  assertEquals(r.json.fixed.requests.heartbeat, Math.round(1234 * 60 / 45));
  const a = await get("/api/cost-estimate?visitors=1000&pollIntervalSeconds=10");
  assertEquals(a.json.adaptive.pollIntervalSeconds, 10);
  assertEquals(a.json.adaptive.requests.status, 1000 * 90); // 900 s / 10 s
});

Deno.test("cost estimate and page ignore unknown parameters (a ?_=1 cache-buster)", async () => {
  for (const q of ["_=1", "visitors=7500&junk=1", "visitors=7500&%3Cscript%3E=1"]) {
    const r = await get(`/api/cost-estimate?${q}`);
    assertEquals(r.status, 200, q);
    assertEquals(Object.keys(r.json.inputs).length, 5, "only the known inputs");
    const page = await get(`/cost?${q}`);
    assertEquals(page.status, 200, q);
    assert(!page.text.includes("<script"), "an unknown name is not echoed raw");
  }
  assertEquals((await get("/api/cost-estimate?visitors=7500&junk=1")).json.inputs.visitors, 7500);
});

Deno.test("cost estimate: every bad input is a 400 bad_request naming the field", async () => {
  const cases: [string, string][] = [
    ["visitors=abc", "visitors"],
    ["visitors=-5", "visitors"],
    ["visitors=0", "visitors"],
    ["visitors=1.5", "visitors"],
    ["visitors=1e6", "visitors"],
    ["visitors=", "visitors"],
    ["visitors=%205", "visitors"],
    ["visitors=100000001", "visitors"],
    ["visitors=5&visitors=6", "visitors"],
    ["averageWaitSeconds=-1", "averageWaitSeconds"],
    ["averageWaitSeconds=0", "averageWaitSeconds"],
    ["averageWaitSeconds=604801", "averageWaitSeconds"],
    ["averageWaitSeconds=soon", "averageWaitSeconds"],
    ["pollingMode=turbo", "pollingMode"],
    ["pollingMode=ADAPTIVE", "pollingMode"],
    ["pollIntervalSeconds=0", "pollIntervalSeconds"],
    ["pollIntervalSeconds=x", "pollIntervalSeconds"],
    ["pollingMode=fixed&pollIntervalSeconds=3601", "pollIntervalSeconds"],
    // 5,000,000 visitors: the service's period is 6667 s; 10 s would break the 750/s budget.
    ["pollIntervalSeconds=10", "pollIntervalSeconds"],
    ["visitors=7500&pollIntervalSeconds=9", "pollIntervalSeconds"],
    ["heartbeatIntervalSeconds=-1", "heartbeatIntervalSeconds"],
    ["heartbeatIntervalSeconds=3601", "heartbeatIntervalSeconds"],
    ["heartbeatIntervalSeconds=often", "heartbeatIntervalSeconds"],
    ["visitors=abc&_=1", "visitors"],
  ];
  for (const [q, field] of cases) {
    const r = await get(`/api/cost-estimate?${q}`);
    assertEquals(r.status, 400, q);
    assertEquals(r.json.error.code, "bad_request", q);
    const fields = r.json.error.details.fields.map((f: { path: string }) => f.path);
    assert(fields.includes(field), `${q}: fields ${JSON.stringify(fields)} lack ${field}`);
  }
  // The boundaries themselves are fine.
  for (
    const q of [
      "visitors=1",
      "visitors=100000000",
      "averageWaitSeconds=604800",
      "pollingMode=fixed&pollIntervalSeconds=3600&heartbeatIntervalSeconds=0",
      "visitors=7500&pollIntervalSeconds=10",
    ]
  ) assertEquals((await get(`/api/cost-estimate?${q}`)).status, 200, q);
});

Deno.test("cost estimate: arithmetic matches numbers worked out by hand", async () => {
  // 100,000 visitors waiting 600 s. Adaptive period max(5, ceil(133.33)) = 134 s.
  const r = await get("/api/cost-estimate?visitors=100000&averageWaitSeconds=600");
  const a = r.json.adaptive, f = r.json.fixed;
  // Adaptive: 600/134 = 4.4776 check-ins each -> 447,761 status; + 100,000 joins.
  assertEquals(a.requests, { join: 100000, status: 447761, heartbeat: 0, total: 547761 });
  // Fixed: 600/15 = 40 polls and 600/30 = 20 heartbeats each.
  assertEquals(f.requests, { join: 100000, status: 4000000, heartbeat: 2000000, total: 6100000 });
  // 0.8: a join commit reads nothing; the sequencer lists each join's arrival entry (1 read) and
  // writes 3 (record, line entry, arrival entry deleted); 345 numbering commits (100,000 / 290)
  // read counts and settings and write counts and the sum.
  // Fixed reads: 3.9M renewals x1 + 2M heartbeats x1 + (admit, enter, release) 3 x 100,000 x 2 +
  // background 1,200 s x 7 + empty ledger reads 1,200 x 1 + numbering 100,000 + 345 x 2.
  assertEquals(f.kv.reads, 3900000 + 2000000 + 600000 + 8400 + 1200 + 100000 + 690);
  // Fixed writes: joins 300,000 + commits 20,000 + renewals 3.9M x3 + heartbeats 2M x3 +
  // admit 400,000 + enter 400,000 + release 200,000 + background 2,400 + numbering 300,000 + 690.
  assertEquals(
    f.kv.writes,
    300000 + 20000 + 11700000 + 6000000 + 1000000 + 2400 + 300000 + 690,
  );
  // Adaptive: 347,761 renewals (1 read, 4 writes), ledger 1,200 s x 134/2 entries.
  assertEquals(a.kv.reads, 347761 + 600000 + 8400 + 80400 + 100000 + 690);
  assertEquals(a.kv.writes, 300000 + 30000 + 347761 * 4 + 1000000 + 2400 + 300000 + 690);
  // Pro plan: $20 + $2/M requests over 5M + $1/M reads over 1.3M + $2.50/M writes over 0.9M.
  assertEquals(f.monthlyCost.requestsUsd, 2.2);
  assertEquals(f.monthlyCost.kvReadsUsd, 5.31); // (6,610,290 - 1,300,000) / 1e6
  assertEquals(f.monthlyCost.kvWritesUsd, 46.06); // (19,323,090 - 900,000) / 1e6 x 2.5
  assertEquals(f.monthlyCost.totalUsd, 73.57);
  assertEquals(a.monthlyCost.requestsUsd, 0);
  assertEquals(a.monthlyCost.kvReadsUsd, 0);
  assertEquals(a.monthlyCost.kvWritesUsd, 5.31); // (3,024,134 - 900,000) / 1e6 x 2.5
  assertEquals(a.monthlyCost.totalUsd, 25.31);
  // Peaks: 100,000 / 134 = 746.27 check-ins/s; fixed 100,000/15 + 100,000/30 requests/s.
  assertEquals(a.perSecond.peakStatus, 746.27);
  assertEquals(f.perSecond.peakStatus, 6666.67);
  assertEquals(f.perSecond.peakRequests, 10000);
  assertEquals(r.json.savings.monthlyUsd, 48.26);
  assertEquals(r.json.savings.requests, 6100000 - 547761);

  // One visitor, one second: a join and the one check-in that learns of the admission.
  const tiny = await get("/api/cost-estimate?visitors=1&averageWaitSeconds=1");
  assertEquals(tiny.json.adaptive.requests, { join: 1, status: 1, heartbeat: 0, total: 2 });
  assertEquals(tiny.json.adaptive.monthlyCost.totalUsd, 20);
});

Deno.test("cost estimate: adaptive check-ins stay within 750/s for millions of visitors", async () => {
  for (const visitors of [1_000_000, 5_000_000, 100_000_000]) {
    // A day's wait: admissions (visitors / 2 days) stay below the budget.
    const r = await get(`/api/cost-estimate?visitors=${visitors}&averageWaitSeconds=86400`);
    const a = r.json.adaptive.perSecond;
    assert(a.peakStatus <= 750 && a.peakStatus > 700, `${visitors}: ${a.peakStatus}`);
    assert(r.json.fixed.perSecond.peakStatus > 60000, "fixed polling is not budgeted");
  }
  // With the default 900 s wait, 5M visitors are admitted at ~2,778/s: the waiting line still
  // checks in within budget, but the check-ins that learn of admission follow that rate.
  const d = await get("/api/cost-estimate");
  assert(d.json.adaptive.perSecond.lineCheckIns <= 750);
  assertEquals(d.json.adaptive.perSecond.peakStatus, 2777.78);
  assert(d.json.notes.some((n: string) => n.includes("2,778 admissions a second")));
});

Deno.test("cost estimate: fixed polling costs more than adaptive at the defaults", async () => {
  const r = await get("/api/cost-estimate");
  const a = r.json.adaptive, f = r.json.fixed, s = r.json.savings;
  assert(f.requests.total > a.requests.total);
  assert(f.kv.reads > a.kv.reads && f.kv.writes > a.kv.writes);
  assert(f.monthlyCost.totalUsd > a.monthlyCost.totalUsd);
  assertEquals(s.requests, f.requests.total - a.requests.total);
  assertEquals(s.kvWrites, f.kv.writes - a.kv.writes);
  assert(Math.abs(s.monthlyUsd - (f.monthlyCost.totalUsd - a.monthlyCost.totalUsd)) < 0.005);
  // 5M joins + 5M status (one each) vs 5M + 300M polls + 150M heartbeats.
  assertEquals([a.requests.total, f.requests.total], [10_000_000, 455_000_000]);
  assert(r.json.formula.statusRequests.includes("visitors × checkInsPerVisitor"));
  assertEquals(r.json.pricing.assumption, true);
  assert(a.kv.terms.every((t: { explanation: string }) => t.explanation.length > 20));
});

Deno.test("cost estimate: the query and response are in the OpenAPI contract", async () => {
  const r = await get("/openapi.json");
  const op = r.json.paths["/api/cost-estimate"]?.get;
  assert(op, "missing get /api/cost-estimate");
  const names = op.parameters.map((p: { name: string }) => p.name).sort();
  assertEquals(names, [
    "averageWaitSeconds",
    "heartbeatIntervalSeconds",
    "pollIntervalSeconds",
    "pollingMode",
    "visitors",
  ]);
  assert(op.responses["400"] && op.responses["200"]);
});

Deno.test("/cost page: a form, the SVG chart of both modes, formulas, strict CSP", async () => {
  const r = await get("/cost");
  assertEquals(r.status, 200);
  assert(r.headers.get("content-type")!.startsWith("text/html"));
  const csp = r.headers.get("content-security-policy")!;
  assert(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"), csp);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(COST_CSS));
  const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
  assert(csp.includes(`style-src 'self' 'sha256-${hash}'`), "the inline style by its hash");
  assert(csp.includes("script-src 'self'") && csp.includes("frame-ancestors 'self'"), csp);
  assert(r.text.includes(`<style>${COST_CSS}</style>`), "the hashed style is the one inlined");
  assert(/^<!doctype html>/i.test(r.text));
  assert(/<form[^>]*method="get"[^>]*action="cost"/.test(r.text), "GET form");
  for (const n of ["visitors", "averageWaitSeconds", "pollingMode", "pollIntervalSeconds"]) {
    assert(r.text.includes(`name="${n}"`), n);
  }
  const svg = /<svg[^>]*role="img"[^>]*aria-label="([^"]*)"/.exec(r.text);
  assert(svg, "an svg with role=img and an aria-label");
  assert(svg[1].includes("adaptive 10,000,000") && svg[1].includes("fixed 455,000,000"), svg[1]);
  assertEquals(r.text.match(/<rect class="bar-adaptive"/g)?.length, 2);
  assertEquals(r.text.match(/<rect class="bar-fixed"/g)?.length, 2);
  assert(!r.text.includes("<script"), "no scripts");
  assert(r.text.includes("prefers-color-scheme:dark"));
  assert(r.text.includes("statusRequests = visitors × checkInsPerVisitor"));
  assert(r.text.includes("adaptive (chosen)"));
});

Deno.test("/cost page: blank form fields mean the defaults", async () => {
  const r = await get(
    "/cost?visitors=&averageWaitSeconds=&pollingMode=fixed&pollIntervalSeconds=" +
      "&heartbeatIntervalSeconds=",
  );
  assertEquals(r.status, 200);
  assert(r.text.includes("fixed (chosen)"));
  assert(r.text.includes('href="api/cost-estimate?pollingMode=fixed"'));
});

Deno.test("/cost page: bad input is a 400 page with the message, nothing unescaped", async () => {
  const r = await get("/cost?visitors=0");
  assertEquals(r.status, 400);
  assert(r.text.includes('role="alert"'));
  assert(r.text.includes("At least 1 visitor."), "worded for people (lib/field_text.ts)");
  assert(r.text.includes('href="#cost-visitors"'), "the summary links to the field");
  assert(!r.text.includes("<svg"), "no chart without an estimate");
  assert(r.text.includes('name="visitors"'), "the form stays, to fix the input");

  const evil = encodeURIComponent('"><script>alert(1)</script>');
  const x = await get(`/cost?visitors=${evil}&${evil}=1`);
  assertEquals(x.status, 400);
  assert(!x.text.includes("<script"), "user input is escaped");
  assert(x.text.includes("&lt;script>") || x.text.includes("&lt;script&gt;"));
  assert(x.text.includes("Enter a whole number (digits only)."));
  assert(!x.text.includes("visitors must"), "no field key in the words");
});
