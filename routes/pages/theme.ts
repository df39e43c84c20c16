/**
 * Branding made safe for a page: colours only as `#rgb`/`#rrggbb` (anything else falls back to
 * the default), a logo only from an `https://` URL or a same-origin path. Text fields need no
 * treatment here: Preact escapes them when rendering.
 */
import { safeReturnPath } from "../../lib/destination.ts";
import { type Branding, DEFAULT_BRANDING } from "../../lib/queue/types.ts";

const COLOUR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** The colour when it is `#rgb` or `#rrggbb`, else `fallback`. */
export function safeColour(value: unknown, fallback: string): string {
  return typeof value === "string" && COLOUR.test(value) ? value.toLowerCase() : fallback;
}

/** The logo URL when it is `https://` or a same-origin path, else "" (no logo). */
export function safeLogoUrl(value: unknown): string {
  if (typeof value !== "string" || value === "") return "";
  if (value.startsWith("/")) return safeReturnPath(value) ?? "";
  if (!/^https:\/\//i.test(value) || /[\s"'\\<>]/.test(value)) return "";
  try {
    return new URL(value).protocol === "https:" ? value : "";
  } catch {
    return "";
  }
}

function rgb(hex: string): [number, number, number] {
  const h = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join("") : hex.slice(1);
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

/** WCAG relative luminance of a `#rgb`/`#rrggbb` colour. */
export function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Dark or light text, whichever reads better on `hex`. */
export function textOn(hex: string): string {
  // Contrast against black vs. white: (L + 0.05) / 0.05 vs. 1.05 / (L + 0.05).
  const l = luminance(hex);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#0f172a" : "#ffffff";
}

/** The branding fields a page shows, validated. */
export interface PageBranding {
  title: string;
  message: string;
  logoUrl: string;
  primaryColor: string;
  backgroundColor: string;
}

/** Validated page branding from the stored record. */
export function pageBranding(b: Branding): PageBranding {
  return {
    title: typeof b.title === "string" && b.title.trim() ? b.title : DEFAULT_BRANDING.title,
    message: typeof b.message === "string" ? b.message : "",
    logoUrl: safeLogoUrl(b.logoUrl),
    primaryColor: safeColour(b.primaryColor, DEFAULT_BRANDING.primaryColor),
    backgroundColor: safeColour(b.backgroundColor, DEFAULT_BRANDING.backgroundColor),
  };
}

/**
 * The inline theme: branding colours as custom properties. The background applies to the light
 * theme only; the dark theme (prefers-color-scheme) keeps its own surfaces and the primary colour.
 */
export function themeCss(b: PageBranding): string {
  return `:root{--tg-primary:${b.primaryColor};--tg-on-primary:${textOn(b.primaryColor)}}` +
    `@media (prefers-color-scheme: light){:root{--tg-bg:${b.backgroundColor};--tg-fg:${
      textOn(b.backgroundColor)
    }}}`;
}
