import type { ComponentChildren } from "preact";

/** A plain message page body (unknown queue, full room, bad request). */
export function Notice(p: { heading: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby="tg-title">
      <h1 id="tg-title">{p.heading}</h1>
      {p.children}
    </section>
  );
}
