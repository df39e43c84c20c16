/** `GET /demo`: a page protected by `requireAdmission()`, showing the verified claims. */
import { Hono } from "hono";
import type { Services } from "../services.ts";
import { DemoPage } from "../../components/DemoPage.tsx";
import { Document } from "../../components/Document.tsx";
import { requireAdmission } from "../../http/require_admission.ts";
import type { AccessClaims } from "../../lib/tokens.ts";
import type { Assets } from "./assets.ts";
import { htmlPage } from "./html.tsx";

/** The protected demo page: admitted visitors see their claims, anyone else goes to /wait. */
export function demoRoutes(s: Services, assets: () => Promise<Assets>) {
  const base = s.config.BASE_PATH ?? "";
  const app = new Hono<{ Variables: { admission: AccessClaims } }>();
  app.get(
    "/demo",
    requireAdmission({
      secret: s.signer,
      now: () => s.clock.now(),
      sessions: s.sessions,
      redirectTo: `${base}/wait?return=${base}/demo`,
    }),
    async (c) => {
      const a = await assets();
      return htmlPage(
        c,
        <Document title="Tollgate demo: you're in" styleHref={a["style.css"]} base={base}>
          <DemoPage claims={c.get("admission")} nowMs={s.clock.now()} base={base} />
        </Document>,
      );
    },
  );
  return app;
}
