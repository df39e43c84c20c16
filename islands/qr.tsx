/**
 * A QR code drawn by the page itself (uqr, bundled into the page script; no image service): one
 * SVG path of the dark modules, with the quiet zone the standard asks for.
 */
import { encode } from "uqr";

/** An SVG QR code of `text`, `label` for screen readers. */
export function QrCode(p: { text: string; label: string }) {
  const { data, size } = encode(p.text, { ecc: "M", border: 4 });
  let d = "";
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) if (data[y][x]) d += `M${x} ${y}h1v1h-1z`;
  }
  return (
    <svg
      class="qr"
      role="img"
      aria-label={p.label}
      viewBox={`0 0 ${size} ${size}`}
      width="200"
      height="200"
      shape-rendering="crispEdges"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
