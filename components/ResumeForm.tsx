import type { Catalogue } from "../lib/i18n/messages/en.ts";

/**
 * The form that moves a place to this browser with a resume code: a plain POST to
 * `/wait/resume`, so it works without JS (and a mail scanner that only fetches the e-mail's link
 * moves nothing: the move needs this button). Shown on the confirm page of a resume link, on the
 * "your place moved" page, and by the island when its place moved. `returnPath`, the page the
 * visitor asked for, goes along, so the moved place still lands there at its turn.
 */
export function ResumeForm(
  p: { queue: string; code?: string; base?: string; returnPath?: string; m: Catalogue },
) {
  return (
    <form class="resume-form" method="post" action={`${p.base ?? ""}/wait/resume`}>
      <input type="hidden" name="queue" value={p.queue} />
      {p.returnPath && <input type="hidden" name="return" value={p.returnPath} />}
      <label>
        {p.m["resume.enterCode"]}
        <input
          name="code"
          value={p.code ?? ""}
          required
          autocomplete="off"
          autocapitalize="characters"
          spellcheck={false}
          maxLength={16}
        />
      </label>
      <button type="submit" class="button">{p.m["resume.takePlace"]}</button>
    </form>
  );
}
