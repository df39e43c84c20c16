/// <reference lib="dom" />
/**
 * Step 2: link the Cloudflare zone in front of the service. In order: check the API token, find
 * the zone and hostname, proxy the hostname's DNS (and turn IP geolocation on), set SSL to Full
 * (strict) or skip; optionally attach a custom domain. Each part shows the server's answer next
 * to its own form; a part opens once the one before it is done. Or go on without an edge network.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { Status, useAction } from "../ui.tsx";
import { edgeDone, type StepProps } from "./types.ts";
import {
  DomainPart,
  E,
  FixPart,
  type RecordView,
  SslPart,
  TokenPart,
  ZonePart,
} from "./edge_parts.tsx";

/** The way past this step without an edge network (its own setup step on the server). */
function NoEdge(p: StepProps) {
  const act = useAction();
  const chosen = !!p.progress?.edge.none;
  return (
    <fieldset class={`wz-noedge${chosen ? " done" : ""}`}>
      <legend>
        I don't use Cloudflare
        {chosen && <span class="wz-done">Chosen</span>}
      </legend>
      <p>
        Choose this when Tollgate runs behind your own proxy (nginx, Caddy) or is served directly
        (Deno Deploy). What changes: no country block from an edge's country header unless your
        proxy sets one (<code>GEO_COUNTRY_HEADER</code>), and sign-in uses the built-in bot check.
        You can link Cloudflare later on the Edge tab.
      </p>
      <div class="actions">
        <button
          type="button"
          class={chosen ? "" : "primary"}
          disabled={act.busy}
          onClick={async () => {
            const out = await act.run(async () => {
              await api("POST", E + "/none");
              return await p.reload();
            }, "Recorded: no edge network.");
            if (out) p.next();
          }}
        >
          Continue without Cloudflare
        </button>
      </div>
      <Status s={act.status} />
    </fieldset>
  );
}

/** The edge step: the way without an edge, then the five parts of linking Cloudflare. */
export function EdgeStep(p: StepProps) {
  // Read in part 2, marked proxied by part 3: the one piece of state two parts share.
  const [records, setRecords] = useState<RecordView[] | null>(null);
  const live = !!p.progress?.live.edge && !p.progress?.edge.token;
  return (
    <div class="wz-edge">
      <NoEdge {...p} />
      <h3>Or link Cloudflare</h3>
      <p>
        Create a Cloudflare API token with the permissions Zone:Read, DNS:Edit, Zone Settings:Edit
        and Account:Turnstile:Edit, then follow the parts below.
      </p>
      {live && <p class="status ok">An edge link is already live. Continue, or link again.</p>}
      <TokenPart {...p} />
      <ZonePart {...p} records={records} setRecords={setRecords} />
      <FixPart {...p} setRecords={setRecords} />
      <SslPart {...p} />
      <DomainPart {...p} />
      <div class="actions">
        <button type="button" class="primary" disabled={!edgeDone(p.progress)} onClick={p.next}>
          Continue
        </button>
        {!edgeDone(p.progress) && <span class="muted">Parts 1 to 4 must be done first.</span>}
      </div>
    </div>
  );
}
