import { WaitRoom, type WaitRoomProps } from "../islands/WaitRoom.tsx";
import type { PageBranding } from "../lib/theme.ts";

/** The body of /wait: branding (escaped by Preact, validated before) and the live island. */
export function WaitPage(p: { branding: PageBranding; island: WaitRoomProps }) {
  const b = p.branding;
  return (
    <section class="card" aria-labelledby="tg-title">
      {b.logoUrl && <img class="logo" src={b.logoUrl} alt="" />}
      <h1 id="tg-title">{b.title}</h1>
      {b.message && <p class="message">{b.message}</p>}
      <div id="tg-wait">
        <WaitRoom {...p.island} />
      </div>
    </section>
  );
}
