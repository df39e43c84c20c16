/// <reference lib="dom" />
/**
 * A QR code drawn by the page itself (no image service): the encoder is a separate bundle
 * (client/qr.ts, built as `qr.js`) loaded when the first code is shown, and the island draws its
 * SVG path with the quiet zone the standard asks for. Without the bundle nothing is drawn (the
 * code and link remain).
 */
import { useEffect, useState } from "preact/hooks";

type Modules = { size: number; d: string };

/** An SVG QR code of `text`, `label` for screen readers; `src`: the built `qr.js`. */
export function QrCode(p: { text: string; label: string; src?: string }) {
  const [qr, setQr] = useState<Modules | null>(null);
  useEffect(() => {
    if (!p.src) return;
    let live = true;
    import(p.src).then((m: { qrModules: (t: string) => Modules }) => {
      if (live) setQr(m.qrModules(p.text));
    }).catch(() => {});
    return () => void (live = false);
  }, [p.text, p.src]);
  if (!qr) return null;
  return (
    <svg
      class="qr"
      role="img"
      aria-label={p.label}
      viewBox={`0 0 ${qr.size} ${qr.size}`}
      width="200"
      height="200"
      shape-rendering="crispEdges"
    >
      <rect width={qr.size} height={qr.size} fill="#fff" />
      <path d={qr.d} fill="#000" />
    </svg>
  );
}
