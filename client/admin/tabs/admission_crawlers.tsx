/// <reference lib="dom" />
/**
 * The Admission tab's search engine card: what a verified crawler gets (`crawlers`) and the
 * waiting page's HTTP status (`queueStatusCode`), saved with `PUT /api/admin/crawlers`.
 */
import { useEffect, useState } from "preact/hooks";
import { api, messageOf } from "../api.ts";
import { ActionForm, Radios } from "../forms.tsx";
import { Section, useAction, useFollowing } from "../ui.tsx";
import { checkedSave } from "../stale.ts";

/** Crawlers in openapi.yaml. */
interface CrawlerRules {
  queue: string;
  crawlers: "queue" | "pass" | "503";
  queueStatusCode: 200 | 429 | 503;
  verified: string[];
}

/** The search engine card of `queue`. */
export function CrawlerCard({ queue }: { queue: string }) {
  const [r, setR] = useState<CrawlerRules | null>(null);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    api<CrawlerRules>("GET", `/api/admin/crawlers?queue=${encodeURIComponent(queue)}`)
      .then((x) => (setR(x), setErr(null)))
      .catch((e) => setErr(messageOf(e)));
  }, [queue]);
  if (!r) {
    return (
      <Section title="Search engines" id="adm-crawlers">
        <p role="status">{err ?? "Loading…"}</p>
      </Section>
    );
  }
  return <CrawlerForm r={r} set={setR} queue={queue} />;
}

function CrawlerForm(p: { r: CrawlerRules; set: (r: CrawlerRules) => void; queue: string }) {
  const [mode, setMode, followMode, baseMode] = useFollowing(p.r.crawlers);
  const [code, setCode, followCode, baseCode] = useFollowing(String(p.r.queueStatusCode));
  const a = useAction();
  const q = encodeURIComponent(p.queue);
  const save = () =>
    a.run(async () => {
      const v = await checkedSave({
        mode: ["Verified crawlers", baseMode, mode],
        code: ["HTTP status of the waiting page", baseCode, code],
      }, async () => {
        const r = await api<CrawlerRules>("GET", `/api/admin/crawlers?queue=${q}`);
        return { mode: r.crawlers, code: String(r.queueStatusCode) };
      });
      const out = await api<CrawlerRules>("PUT", "/api/admin/crawlers", {
        queue: p.queue,
        crawlers: v.mode,
        queueStatusCode: Number(v.code),
      });
      p.set(out);
      followMode(mode), followCode(code);
      return "Search engine rules saved.";
    });
  return (
    <Section title="Search engines" id="adm-crawlers">
      <p class="muted">
        A crawler is recognised by reverse-then-forward DNS of its address ({p.r.verified.join(
          ", ",
        )}); its user agent alone is never believed.
      </p>
      <ActionForm act={a} submit="Save search engine rules" noValidate onSubmit={save}>
        <Radios
          legend="Verified crawlers"
          class="adm-choices"
          name="adm-crawlers-mode"
          options={[
            ["queue", "Wait in line like everyone"],
            ["pass", "Reach the site without a place (not counted against capacity)"],
            ["503", "Get 503 with Retry-After (come back later)"],
          ]}
          value={mode}
          onChange={setMode}
        />
        <Radios
          legend="HTTP status of the waiting page"
          class="adm-choices"
          name="adm-crawlers-status"
          options={[["200", "200 OK"], ["429", "429 Too Many Requests"], [
            "503",
            "503 Service Unavailable",
          ]]}
          value={code}
          onChange={setCode}
        />
      </ActionForm>
    </Section>
  );
}
