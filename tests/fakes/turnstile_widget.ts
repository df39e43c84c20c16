/**
 * A fake of Turnstile's browser side for browser tests: `GET /turnstile/v0/api.js` defines
 * `window.turnstile` (render, reset, remove, getResponse; `?onload=` honoured; explicit rendering)
 * and renders, in the container it is given, an iframe of this fake's own origin
 * (`/turnstile/v0/frame?sitekey=..&host=<the page's hostname>&id=..`). The frame shows a "Verify
 * you are human" button; clicking it fetches a token from the fake (`fakeTurnstile.solve(sitekey,
 * host)`, valid once at siteverify) and posts it to the parent, where api.js calls the callback.
 * `expire(token)` makes the widget on the page call its `expired-callback`.
 */
import type { FakeTurnstile } from "./turnstile.ts";
import type { FakeHandler } from "./serve.ts";

/** The api.js script: `ORIGIN` is replaced by the fake server's origin. */
const API_JS = `(() => {
  const ORIGIN = __ORIGIN__;
  const widgets = new Map();
  let next = 0;
  const el = (c) => typeof c === "string" ? document.querySelector(c) : c;
  addEventListener("message", (e) => {
    if (e.origin !== ORIGIN || !e.data || e.data.source !== "fake-turnstile") return;
    const w = widgets.get(e.data.id);
    if (!w) return;
    if (e.data.event === "token") {
      w.token = e.data.token;
      w.params.callback && w.params.callback(e.data.token);
    } else if (e.data.event === "error") {
      w.params["error-callback"] && w.params["error-callback"](e.data.code || "error");
    }
  });
  function frame(w) {
    const f = document.createElement("iframe");
    const q = new URLSearchParams({ sitekey: w.params.sitekey, host: location.hostname, id: w.id });
    if (w.params.action) q.set("action", w.params.action);
    f.src = ORIGIN + "/turnstile/v0/frame?" + q;
    f.title = "Widget containing a bot challenge";
    f.width = "300";
    f.height = "70";
    f.setAttribute("frameborder", "0");
    return f;
  }
  window.turnstile = {
    render(container, params) {
      const c = el(container);
      if (!c) throw new Error("turnstile.render: container not found");
      const id = "fake-" + (++next);
      const w = { id, c, params: params || {}, token: undefined };
      widgets.set(id, w);
      c.replaceChildren(frame(w));
      return id;
    },
    reset(id) {
      const w = id ? widgets.get(id) : [...widgets.values()].pop();
      if (!w) return;
      w.token = undefined;
      w.c.replaceChildren(frame(w));
    },
    remove(id) {
      const w = widgets.get(id);
      if (!w) return;
      w.c.replaceChildren();
      widgets.delete(id);
    },
    getResponse(id) {
      const w = id ? widgets.get(id) : [...widgets.values()].pop();
      return w && w.token;
    },
    isExpired(id) {
      const w = widgets.get(id);
      return !!w && w.expired === true;
    },
    __expire(token) {
      for (const w of widgets.values()) {
        if (w.token === token) {
          w.token = undefined;
          w.expired = true;
          w.params["expired-callback"] && w.params["expired-callback"]();
        }
      }
    },
  };
  const onload = new URL(document.currentScript ? document.currentScript.src : ORIGIN)
    .searchParams.get("onload");
  if (onload && typeof window[onload] === "function") window[onload]();
})();
`;

/**
 * The frame page: one button, enabled once its click handler is attached; a click fetches a token
 * and posts it to the parent.
 */
const FRAME_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Bot challenge</title>
<style>body{margin:0;font:14px system-ui,sans-serif}div{display:flex;gap:8px;align-items:center;
border:1px solid #bbb;border-radius:4px;padding:10px;background:#fafafa;color:#222}
button{font:inherit;padding:6px 10px}</style></head>
<body><div><button type="button" id="go" disabled>Verify you are human</button><span id="out"></span></div>
<script>
const q = new URLSearchParams(location.search);
const out = document.getElementById("out");
const go = document.getElementById("go");
go.addEventListener("click", async () => {
  out.textContent = "Checking…";
  try {
    const res = await fetch("/turnstile/v0/solve?" + q);
    const { token } = await res.json();
    out.textContent = "Success!";
    parent.postMessage({ source: "fake-turnstile", event: "token", id: q.get("id"), token }, "*");
  } catch (e) {
    out.textContent = "Error";
    parent.postMessage({ source: "fake-turnstile", event: "error", id: q.get("id") }, "*");
  }
});
// Enabled only once it listens: a click that came before would be lost.
go.disabled = false;
</script></body></html>`;

/** The widget-side handler, over `fake` (whose `solve` makes the tokens). Put it first. */
export function fakeTurnstileWidget(fake: FakeTurnstile): FakeHandler {
  return (req) => {
    const u = new URL(req.url);
    if (req.method !== "GET") return null;
    if (u.pathname === "/turnstile/v0/api.js") {
      const js = API_JS.replace("__ORIGIN__", JSON.stringify(u.origin));
      return new Response(js, {
        headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-store" },
      });
    }
    if (u.pathname === "/turnstile/v0/frame") {
      return new Response(FRAME_HTML, {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
      });
    }
    if (u.pathname === "/turnstile/v0/solve") {
      const sitekey = u.searchParams.get("sitekey") ?? "";
      const host = u.searchParams.get("host") ?? "";
      const token = fake.solve(sitekey, host, u.searchParams.get("action") ?? "");
      return Response.json({ token }, { headers: { "cache-control": "no-store" } });
    }
    return null;
  };
}
