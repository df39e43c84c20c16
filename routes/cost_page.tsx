/** The `/cost` page: the calculator form, adaptive vs fixed side by side, an SVG chart. */
import { type CostEstimate, type ModeEstimate, POLLING_MODES } from "../lib/cost.ts";
import { fieldLabel, type FieldProblem, fieldProblems } from "../lib/field_text.ts";
import { CostChart, num, usd } from "./cost_chart.tsx";

/** What the page shows: an estimate, or the problems with the query (then a 400). */
export interface CostPageProps {
  /** The raw query values, echoed into the form (never defaults, so switching modes works). */
  raw: Record<string, string>;
  /** The defaults for the placeholders. */
  defaults: { visitors: number; averageWaitSeconds: number; adaptivePoll: number };
  estimate?: CostEstimate;
  problems?: FieldProblem[];
}

/** Each problem once, worded for people (lib/field_text.ts), by the field it concerns. */
type Worded = Map<string, string>;

/** The page's stylesheet: a constant (no user data), inlined and allowed by its hash in the CSP. */
export const COST_CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;
--adaptive:#1f6feb;--on-adaptive:#fff;--fixed:#cf222e;--card:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;
--line:#30363d;--adaptive:#58a6ff;--on-adaptive:#0d1117;--fixed:#ff7b72;--card:#161b22}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);
font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:60rem;margin:0 auto;padding:1rem}h1{font-size:1.6rem;margin:.5rem 0}
form{display:grid;grid-template-columns:repeat(auto-fit,minmax(13rem,1fr));gap:.75rem;
background:var(--card);padding:1rem;border:1px solid var(--line);border-radius:.5rem}
label{display:flex;flex-direction:column;font-weight:600;font-size:.9rem}
input,select,button{font:inherit;padding:.45rem;margin-top:.25rem;border:1px solid var(--line);
border-radius:.35rem;background:var(--bg);color:var(--fg)}
button{background:var(--adaptive);color:var(--on-adaptive);border:0;font-weight:600;align-self:end}
.hint{font-weight:400;color:var(--muted);font-size:.8rem}
.error{border:2px solid var(--fixed);padding:.75rem 1rem;border-radius:.5rem;margin:1rem 0}
.field-error{font-weight:600;color:var(--fixed);font-size:.85rem}.error a{color:inherit}
.scroll{overflow-x:auto;background:linear-gradient(to left,var(--bg) 30%,transparent) right/40px
100% no-repeat local,radial-gradient(farthest-side at 100% 50%,rgba(0,0,0,.3),transparent)
right/14px 100% no-repeat scroll}
table{border-collapse:collapse;width:100%;margin:1rem 0}
.scroll-hint{display:none;margin:.25rem 0 0}
th,td{padding:.4rem .6rem;border-bottom:1px solid var(--line);text-align:right}
th:first-child,td:first-child{text-align:left}td.text{text-align:left}
.chosen{font-weight:700}.bar-adaptive{fill:var(--adaptive)}.bar-fixed{fill:var(--fixed)}
svg.chart{max-width:36rem;display:block}svg text{fill:var(--fg);font-size:12px}
svg .title{font-weight:700}
code{font-size:.85rem;overflow-wrap:anywhere}li{margin:.25rem 0}.muted{color:var(--muted)}
td:not(:first-child){white-space:nowrap}
@media (max-width:40rem){table{font-size:.85rem}th,td{padding:.3rem}main{padding:.6rem}
.scroll-hint{display:block}}
`;

type FieldProps = { name: string; label: string; placeholder: string; hint: string };

function Field(p: FieldProps & { raw: Record<string, string>; bad: Worded }) {
  const err = p.bad.get(p.name);
  return (
    <label>
      {p.label}
      <input
        id={`cost-${p.name}`}
        aria-describedby={err ? `cost-${p.name}-err` : undefined}
        name={p.name}
        type="number"
        inputMode="numeric"
        min="0"
        step="1"
        value={p.raw[p.name] ?? ""}
        placeholder={p.placeholder}
        aria-invalid={err ? "true" : undefined}
      />
      {err && <span class="field-error" id={`cost-${p.name}-err`}>{err}</span>}
      <span class="hint">{p.hint}</span>
    </label>
  );
}

function CostForm(p: Pick<CostPageProps, "raw" | "defaults" | "problems">) {
  const mode = p.raw.pollingMode === "fixed" ? "fixed" : "adaptive";
  const bad: Worded = new Map();
  for (const x of fieldProblems(p.problems ?? [])) {
    bad.set(x.path, bad.has(x.path) ? `${bad.get(x.path)} ${x.text}` : x.text);
  }
  const d = p.defaults;
  const fields: FieldProps[] = [
    {
      name: "visitors",
      label: "Visitors",
      placeholder: String(d.visitors),
      hint: `unique visitors; default ${num.format(d.visitors)}`,
    },
    {
      name: "averageWaitSeconds",
      label: "Average wait (s)",
      placeholder: String(d.averageWaitSeconds),
      hint: `before admission; default ${d.averageWaitSeconds}`,
    },
    {
      name: "pollIntervalSeconds",
      label: "Poll interval (s)",
      placeholder: mode === "fixed" ? "15" : String(d.adaptivePoll),
      hint: `blank: adaptive max(5, ceil(visitors/750)) = ${num.format(d.adaptivePoll)}; fixed 15`,
    },
    {
      name: "heartbeatIntervalSeconds",
      label: "Heartbeat interval (s)",
      placeholder: mode === "fixed" ? "30" : "0",
      hint: "blank: fixed 30; unused when adaptive",
    },
  ];
  return (
    // Relative (like the estimate link below): the page also works under a BASE_PATH prefix.
    <form method="get" action="cost" aria-label="Cost calculator inputs">
      {fields.slice(0, 2).map((f) => <Field key={f.name} {...f} raw={p.raw} bad={bad} />)}
      <label>
        Polling mode
        <select
          id="cost-pollingMode"
          name="pollingMode"
          aria-invalid={bad.has("pollingMode") ? "true" : undefined}
        >
          {POLLING_MODES.map((m) => <option key={m} value={m} selected={m === mode}>{m}</option>)}
        </select>
        {bad.has("pollingMode") && <span class="field-error">{bad.get("pollingMode")}</span>}
        <span class="hint">adaptive timeslots (default) or fixed polling</span>
      </label>
      {fields.slice(2).map((f) => <Field key={f.name} {...f} raw={p.raw} bad={bad} />)}
      <button type="submit">Estimate</button>
    </form>
  );
}

type Kind = "count" | "money" | "setting";

function Row(p: { label: string; get: (m: ModeEstimate) => number; e: CostEstimate; kind: Kind }) {
  const f = (n: number) => p.kind === "money" ? usd.format(n) : num.format(n);
  const a = p.get(p.e.adaptive), x = p.get(p.e.fixed);
  return (
    <tr>
      <td>{p.label}</td>
      <td>{f(a)}</td>
      <td>{f(x)}</td>
      <td>{p.kind === "setting" ? "—" : f(x - a)}</td>
    </tr>
  );
}

function Results({ e }: { e: CostEstimate }) {
  const head = (m: ModeEstimate) => (
    <th scope="col" class={m.chosen ? "chosen" : undefined}>
      {m.mode}
      {m.chosen ? " (chosen)" : ""}
    </th>
  );
  const rows: [string, (m: ModeEstimate) => number, Kind?][] = [
    ["Poll / check-in period (s)", (m) => m.pollIntervalSeconds, "setting"],
    ["Heartbeat interval (s)", (m) => m.heartbeatIntervalSeconds, "setting"],
    ["Status checks per visitor", (m) => m.checkInsPerVisitor],
    ["Join requests", (m) => m.requests.join],
    ["Status requests", (m) => m.requests.status],
    ["Heartbeat requests", (m) => m.requests.heartbeat],
    ["Total requests", (m) => m.requests.total],
    ["KV read units", (m) => m.kv.reads],
    ["KV write units", (m) => m.kv.writes],
    ["Peak status requests / s", (m) => m.perSecond.peakStatus],
    ["Peak requests / s (status + heartbeat)", (m) => m.perSecond.peakRequests],
    ["Requests cost", (m) => m.monthlyCost.requestsUsd, "money"],
    ["KV reads cost", (m) => m.monthlyCost.kvReadsUsd, "money"],
    ["KV writes cost", (m) => m.monthlyCost.kvWritesUsd, "money"],
    ["Monthly total (incl. plan base)", (m) => m.monthlyCost.totalUsd, "money"],
  ];
  return (
    <>
      <p class="scroll-hint muted">The table is wider than the screen: scroll it sideways →</p>
      <div class="scroll" tabIndex={0} role="region" aria-label="Monthly cost comparison">
        <table>
          <caption class="muted">
            {num.format(e.inputs.visitors)} visitors waiting{" "}
            {num.format(e.inputs.averageWaitSeconds)}{" "}
            s on average; the mode not chosen uses its own defaults
          </caption>
          <thead>
            <tr>
              <th scope="col">Per month</th>
              {head(e.adaptive)}
              {head(e.fixed)}
              <th scope="col">fixed − adaptive</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, get, kind]) => (
              <Row key={label} label={label} get={get} e={e} kind={kind ?? "count"} />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function KvTerms({ e }: { e: CostEstimate }) {
  return (
    <details>
      <summary>Where the KV reads and writes come from</summary>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Term</th>
              <th scope="col">adaptive reads / writes</th>
              <th scope="col">fixed reads / writes</th>
              <th scope="col">count × (reads, writes) each</th>
            </tr>
          </thead>
          <tbody>
            {e.adaptive.kv.terms.map((t, i) => {
              const f = e.fixed.kv.terms[i];
              return (
                <tr key={t.name}>
                  <td>{t.name}</td>
                  <td>{num.format(t.reads)} / {num.format(t.writes)}</td>
                  <td>{num.format(f.reads)} / {num.format(f.writes)}</td>
                  <td class="text">
                    <code>{t.formula}</code> × ({t.readsEach}, {t.writesEach}): {t.explanation}
                    {f.explanation !== t.explanation && (
                      <p>
                        fixed: <code>{f.formula}</code> × ({f.readsEach}, {f.writesEach}):{" "}
                        {f.explanation}
                      </p>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </details>
  );
}

/** The whole `/cost` document; render it with `htmlPage` and `inlineStyle: COST_CSS`. */
export function CostPage(p: CostPageProps) {
  const e = p.estimate;
  const api = new URLSearchParams(p.raw).toString();
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Cost calculator · Tollgate</title>
        <style dangerouslySetInnerHTML={{ __html: COST_CSS }} />
      </head>
      <body>
        <main>
          <h1>What does the waiting room cost?</h1>
          <p class="muted">
            Requests, Deno KV reads and writes and the monthly Deno Deploy bill of one sale, for
            adaptive timeslots (each waiter checks in on a server-assigned second, 750 a second at
            most) and for fixed polling with heartbeats.
          </p>
          {p.problems && (
            <div class="error" role="alert">
              <strong>These inputs cannot be estimated; fix them below:</strong>
              <ul>
                {[...new Set(fieldProblems(p.problems).map((x) => x.path))].map((path) => (
                  <li key={path}>
                    <a href={`#cost-${path}`}>{fieldLabel(path)}</a>
                  </li>
                ))}
              </ul>
            </div>
          )}
          <CostForm raw={p.raw} defaults={p.defaults} problems={p.problems} />
          {e && (
            <section aria-label="Estimate">
              <h2>Adaptive vs fixed</h2>
              <CostChart estimate={e} />
              <Results e={e} />
              <p>
                Savings with adaptive timeslots: <strong>{usd.format(e.savings.monthlyUsd)}</strong>
                {" "}
                a month ({e.savings.percentOfFixedCost}% of the fixed-polling bill),{" "}
                {num.format(e.savings.requests)} fewer requests.
              </p>
              <KvTerms e={e} />
              <h2>Formulas</h2>
              <ul>
                {Object.entries(e.formula).map(([k, v]) => (
                  <li key={k}>
                    <code>{k} = {v}</code>
                  </li>
                ))}
              </ul>
              <h2>Notes</h2>
              <ul>{e.notes.map((n, i) => <li key={i}>{n}</li>)}</ul>
              <p class="muted">
                The same estimate as JSON:{" "}
                <a href={`api/cost-estimate${api ? `?${api}` : ""}`}>/api/cost-estimate</a>
              </p>
            </section>
          )}
        </main>
      </body>
    </html>
  );
}
