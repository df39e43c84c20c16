/// <reference lib="dom" />
/** Browser entry of /admin: renders the admin single-page app into #tg-admin. */
import { render } from "preact";
import { App } from "./app.tsx";
import { guardPageExit } from "./unsaved.ts";

const root = document.getElementById("tg-admin");
if (root) {
  guardPageExit();
  render(<App />, root);
  root.dataset.live = "1";
}
