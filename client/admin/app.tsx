/// <reference lib="dom" />
/**
 * The admin app: reads the bootstrap flags and shows the one screen they call for — an invite's
 * accept form, recovery, the setup wizard, sign-in, the terms, or the control room.
 */
import { useEffect, useState } from "preact/hooks";
import { api, basePath, messageOf, setUnauthorizedHandler } from "./api.ts";
import type { Bootstrap } from "./boot.ts";
import { ConfirmHost } from "./ui.tsx";
import { InviteAccept, Login, Recover, TosAccept } from "./auth.tsx";
import { Wizard } from "./wizard/mod.tsx";
import { ControlRoom } from "./control.tsx";

/** Which screen the URL asks for: `?invite=<token>` or `?recover`. */
function urlScreen(): { invite?: string; recover?: boolean } {
  const q = new URLSearchParams(location.search);
  return { invite: q.get("invite") ?? undefined, recover: q.has("recover") };
}

export function App() {
  const [boot, setBoot] = useState<Bootstrap | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [screen, setScreen] = useState(urlScreen);
  const load = async () => {
    try {
      setBoot(await api<Bootstrap>("GET", "/api/admin/bootstrap"));
      setError(null);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  useEffect(() => {
    setUnauthorizedHandler(() => void load());
    load();
    const onPop = () => setScreen(urlScreen());
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);
  /** Leaves `?invite=`/`?recover` behind and re-reads the flags. */
  const done = () => {
    if (location.search) history.replaceState(null, "", `${basePath()}/admin`);
    setScreen({});
    load();
  };

  let body;
  if (error) {
    body = (
      <div class="card" role="alert">
        <p>{error}</p>
        <button type="button" onClick={load}>Try again</button>
      </div>
    );
  } else if (!boot) {
    body = <p aria-busy="true">Loading…</p>;
  } else if (screen.invite && !boot.signedIn) {
    body = <InviteAccept boot={boot} token={screen.invite} done={done} />;
  } else if (screen.recover && !boot.signedIn) {
    body = <Recover boot={boot} done={done} />;
  } else if (!boot.claimed) {
    body = <Wizard boot={boot} done={done} />;
  } else if (!boot.signedIn) {
    body = <Login boot={boot} done={done} />;
  } else if (boot.needsTos) {
    body = <TosAccept boot={boot} done={done} />;
  } else if (!boot.setupComplete) {
    body = <Wizard boot={boot} done={done} />;
  } else {
    body = <ControlRoom boot={boot} done={done} />;
  }
  return (
    <>
      <a class="skip" href="#admin-main">Skip to content</a>
      <header class="top">
        <span class="brand">Tollgate</span>
        {boot && <span class="version">v{boot.version}</span>}
        {boot?.signedIn && boot.me && (
          <span class="who">
            {boot.me.username}{" "}
            <button
              type="button"
              class="link"
              onClick={async () => {
                await api("POST", "/api/admin/logout").catch(() => {});
                done();
              }}
            >
              Sign out
            </button>
          </span>
        )}
      </header>
      <main id="admin-main" tabIndex={-1}>{body}</main>
      <ConfirmHost />
    </>
  );
}
