/**
 * The floor of a forward-auth check, for bench/forward_auth.ts: a `Deno.serve` app that answers
 * every check a cookie comes with by 204 and the headers Tollgate's admitted answer carries
 * (`Cache-Control`, `X-Tollgate-Visitor`, `X-Tollgate-Queue`, `X-Request-Id`), without reading or
 * verifying anything; 401 without a cookie; 200 on `/_tollgate/health`. What any check answered by
 * a Deno process costs nginx and the machine: Tollgate's shipped check is compared with it.
 */
const port = Number(Deno.env.get("PORT") ?? "8103");
let n = 0;

Deno.serve(
  { hostname: "127.0.0.1", port, onListen: () => console.log(`check floor on ${port}`) },
  (req) => {
    if (req.url.endsWith("/health")) return new Response("ok");
    if (!req.headers.has("cookie")) return new Response(null, { status: 401 });
    const res = new Response(null, { status: 204 });
    res.headers.set("Cache-Control", "no-store");
    res.headers.set("X-Tollgate-Visitor", "bench");
    res.headers.set("X-Tollgate-Queue", "default");
    res.headers.set("X-Request-Id", (++n).toString(36).padStart(16, "0"));
    return res;
  },
);
