/// <reference lib="dom" />
/**
 * The Access tab's country block: the countries, how long the block lasts, its state (on until
 * when, ended, off), and the joins it refused per country.
 */
import { useState } from "preact/hooks";
import type { GeoBlockView } from "../../../lib/access/mod.ts";
import { api } from "../api.ts";
import { ActionForm, Check, Input, useLoad } from "../forms.tsx";
import { confirmAction, Field, localTime, Section, useAction } from "../ui.tsx";
import { checkedSave, editsOf } from "../stale.ts";

type GeoBlock = GeoBlockView;

/** Asks before the block is switched on or off (on: for how long; off: everyone joins again). */
function confirmGeoSwitch(on: boolean, ttl: string): Promise<boolean> {
  const hours = Number(ttl);
  // An empty or bad duration is refused by name after this; the question must still read well.
  const span = ttl.trim() && hours > 0 ? ` for ${hours} ${hours === 1 ? "hour" : "hours"}` : "";
  return confirmAction(
    on
      ? `Block visitors from these countries${span}? They cannot join the queue.`
      : "Turn the country block off? Visitors from every country can join again.",
    on ? "Turn on" : "Turn off",
  );
}

/** The block's state in words: on until when, ended, or off. */
function geoStateText(view: GeoBlock | null): string {
  return !view
    ? "Loading…"
    : view.active
    ? `On: blocking ${view.countries.join(", ")} until ${localTime(view.expiresAt)}.`
    : view.enabled
    ? `Ended at ${localTime(view.expiresAt)} (no longer blocking).`
    : "Off.";
}

/** The form's fields, named when another tab saved one meanwhile. */
const LABELS = { on: "Block these countries", text: "Countries", ttl: "Duration in hours" };
type GeoForm = Record<keyof typeof LABELS, unknown>;

/** A stored block as the form shows it. */
const formOf = (v: GeoBlock, ttl: string): GeoForm => ({
  on: v.enabled,
  text: v.countriesText,
  ttl: v.ttlHours ? String(v.ttlHours) : ttl,
});

/** Refused joins per country since the block was turned on, most first. */
function GeoHits({ hits }: { hits: [string, number][] }) {
  return (
    <table>
      <caption>Refused joins since the block was turned on</caption>
      <thead>
        <tr>
          <th scope="col">Country</th>
          <th scope="col">Refused</th>
        </tr>
      </thead>
      <tbody>
        {hits.map(([c, n]) => (
          <tr key={c}>
            <td>{c}</td>
            <td>{n}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The country block: the list, its duration, its state, and what it refused. */
export function GeoBlockSection() {
  const [view, setView] = useState<GeoBlock | null>(null);
  const [on, setOn] = useState(false);
  const [text, setText] = useState("");
  const [ttl, setTtl] = useState("24");
  const act = useAction();
  // The block as loaded or last saved here: what the form was loaded with, for checkedSave.
  const [base, setBase] = useState<GeoForm | null>(null);
  const show = (v: GeoBlock) => {
    setView(v);
    setBase(formOf(v, ttl));
    setOn(v.enabled);
    setText(v.countriesText);
    if (v.ttlHours) setTtl(String(v.ttlHours));
  };
  const { loaded } = useLoad("/api/admin/geo-block", show, act);
  // Where a visitor's country comes from: Cloudflare when the edge is linked, else a proxy.
  const [cloudflare, setCloudflare] = useState<boolean | null>(null);
  useLoad<{ linked: boolean }>("/api/admin/edge", (e) => setCloudflare(e.linked));

  const save = async () => {
    if (view && on !== view.enabled && !await confirmGeoSwitch(on, ttl)) return;
    await act.run(async () => {
      const mine = { on, text, ttl };
      const f = await checkedSave(
        editsOf(LABELS, base ?? mine, mine),
        async () => formOf(await api<GeoBlock>("GET", "/api/admin/geo-block"), ttl),
      );
      const body: Record<string, unknown> = { enabled: f.on, countriesText: f.text };
      if (String(f.ttl).trim()) body.ttlHours = Number(f.ttl);
      const out = await api<GeoBlock>("PUT", "/api/admin/geo-block", body);
      show(out);
      return out.enabled ? "Saved: the country block is on." : "Saved: the country block is off.";
    });
  };

  const hits = Object.entries(view?.hits ?? {}).sort((a, b) => b[1] - a[1]);
  return (
    <Section title="Country block" id="geo">
      <p class="muted" data-testid="geo-source">
        {cloudflare === null
          ? ""
          : cloudflare
          ? "Refuses joins from the listed countries, using the visitor country Cloudflare adds " +
            "(IP geolocation must be on, see the Edge tab)."
          : "Refuses joins from the listed countries, using the visitor country your own proxy " +
            "sends (the GEO_COUNTRY_HEADER header, cf-ipcountry unless set). Without a proxy " +
            "that sends it, visitors have no country and none is refused."}{" "}
        The block ends by itself after its duration.
      </p>
      <p data-testid="geo-state">
        {geoStateText(view)}
      </p>
      <ActionForm act={act} submit="Save country block" onSubmit={save} loading={!loaded}>
        <Check id="geo-on" label="Block these countries" checked={on} onChange={setOn} />
        <Field
          label="Countries"
          name="countriesText"
          hint="Two-letter codes (ISO 3166-1), one per line; # comments."
        >
          {(id, errId) => (
            <textarea
              id={id}
              rows={4}
              value={text}
              aria-describedby={errId}
              aria-invalid={!!errId}
              onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            />
          )}
        </Field>
        <Input
          label="Duration in hours"
          name="ttlHours"
          hint="Required when turning on: 1 to 720."
          type="number"
          min={1}
          max={720}
          inputMode="numeric"
          value={ttl}
          onValue={setTtl}
        />
      </ActionForm>
      {hits.length > 0 && <GeoHits hits={hits} />}
    </Section>
  );
}
