import type { AccessClaims } from "../lib/tokens.ts";

function when(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(".000Z", "Z");
}

/** /demo for an admitted visitor: the verified claims and the flow in five steps. */
export function DemoPage(p: { claims: AccessClaims; nowMs: number; base?: string }) {
  const again = `${p.base ?? ""}/wait?return=${p.base ?? ""}/demo`;
  const c = p.claims;
  const minutes = Math.max(0, Math.round((c.exp * 1000 - p.nowMs) / 60000));
  return (
    <section class="card" aria-labelledby="tg-title">
      <h1 id="tg-title">You're in: this page is protected</h1>
      <p class="message">
        This demo page let you through because your browser carries a valid access token. It was
        checked by{" "}
        <code>requireAdmission()</code>, with no database lookup: the token is signed (a queue with
        sliding sessions renews yours at most once a minute).
      </p>
      <h2>Verified claims</h2>
      <dl class="claims">
        <dt>Visitor</dt>
        <dd data-claim="sub">{c.sub}</dd>
        <dt>Queue</dt>
        <dd data-claim="queue">{c.queue}</dd>
        <dt>Issued</dt>
        <dd data-claim="iat">{when(c.iat)}</dd>
        <dt>Expires</dt>
        <dd data-claim="exp">
          {when(c.exp)} (in about {minutes} minute{minutes === 1 ? "" : "s"})
        </dd>
      </dl>
      <h2>What just happened</h2>
      <ol class="steps">
        <li>
          Opening <code>/demo</code> without a token sent you to <code>/wait?return=/demo</code>.
        </li>
        <li>
          The waiting room gave you a place in line and a signed ticket (the <code>tg_ticket</code>
          {" "}
          cookie).
        </li>
        <li>
          The page checked in at the moments the server chose for it, so a million waiting visitors
          cost about 750 requests a second, not more.
        </li>
        <li>
          When admission reached you (at the configured rate, or an operator's{" "}
          <code>POST /admit</code>), the service signed an access token: the <code>tg_access</code>
          {" "}
          cookie, valid until the time above.
        </li>
        <li>You were sent back here, and this page verified the token.</li>
      </ol>
      <p class="hint">
        To see it again, open <a href={again}>{again}</a> in a private window.
      </p>
    </section>
  );
}
