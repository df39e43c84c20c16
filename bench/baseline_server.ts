/** The baseline: plain Hono text responses on Deno.serve, nothing else. Run as its own process. */
import { Hono } from "hono";

const port = Number(Deno.env.get("PORT") ?? "8100");
const app = new Hono();
app.get("/", (c) => c.text("Hello, world"));
Deno.serve(
  { hostname: "127.0.0.1", port, onListen: () => console.log(`baseline on ${port}`) },
  app.fetch,
);
