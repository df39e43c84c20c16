/// <reference lib="dom" />
/**
 * The Admission tab's "see the site as a visitor" card: an admission pass for this browser that
 * takes no slot, and the site opened in a new tab so the control room stays where it was.
 */
import { api } from "../api.ts";
import { Section, Status, useAction } from "../ui.tsx";

/** The pass card of `queue`. */
export function PassCard({ queue }: { queue: string }) {
  const a = useAction();
  return (
    <Section title="See the site as a visitor" id="adm-pass">
      <p class="muted">
        Gives this browser an admission pass that takes no slot, then opens the site in a new tab
        (this one stays on the control room).
      </p>
      <div class="actions">
        <button
          type="button"
          disabled={a.busy}
          onClick={() => {
            // Opened now, while the click counts (a tab opened after the call would be blocked).
            const tab = open("", "_blank");
            if (tab) tab.opener = null;
            a.run(async () => {
              try {
                const r = await api<{ redirectTo: string }>("POST", "/api/admin/pass", { queue });
                if (tab) tab.location.href = new URL(r.redirectTo, location.href).href;
                else open(r.redirectTo, "_blank", "noopener");
                return "The site opened in a new tab.";
              } catch (e) {
                tab?.close();
                throw e;
              }
            });
          }}
        >
          Visit the site as an admitted visitor
        </button>
      </div>
      <Status s={a.status} />
    </Section>
  );
}
