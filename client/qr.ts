/**
 * The QR code drawer of the wait page's "continue on another device", built as its own bundle
 * (`qr.js`) and loaded only when a visitor asks for a code: the encoder (uqr) would otherwise
 * weigh on every visitor's page. Answers the dark modules as one SVG path.
 */
import { encode } from "uqr";

/** The QR code of `text` (error correction M, the standard quiet zone): its size and SVG path. */
export function qrModules(text: string): { size: number; d: string } {
  const { data, size } = encode(text, { ecc: "M", border: 4 });
  let d = "";
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) if (data[y][x]) d += `M${x} ${y}h1v1h-1z`;
  }
  return { size, d };
}
