/**
 * Branding made safe for a page: colours only as `#rgb`/`#rrggbb` (anything else falls back to
 * the default), a logo only from an `https://` URL or a same-origin path. Text fields need no
 * treatment here: Preact escapes them when rendering.
 */
import { type Branding, COLOR, DEFAULT_BRANDING } from "./branding.ts";
import { isHttpsUrl, isSameOriginPath } from "./destination.ts";

/** The colour when it is `#rgb` or `#rrggbb`, else `fallback`. */
export function safeColour(value: unknown, fallback: string): string {
  return typeof value === "string" && COLOR.test(value) ? value.toLowerCase() : fallback;
}

/**
 * The logo URL when it is `https://` (no credentials) or a same-origin path, else "" (no logo).
 * Quotes or spaces need no filter: Preact escapes attribute values.
 */
export function safeLogoUrl(value: unknown): string {
  return typeof value === "string" && (isSameOriginPath(value) || isHttpsUrl(value)) ? value : "";
}

function rgb(hex: string): [number, number, number] {
  const h = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join("") : hex.slice(1);
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

/** WCAG relative luminance of a `#rgb`/`#rrggbb` colour. */
function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two `#rgb`/`#rrggbb` colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The text colours of the stylesheet (client/style.css): dark text, light text. */
const DARK_TEXT = "#0f172a";
const LIGHT_TEXT = "#ffffff";
/** Softer text (hints, footer) when it still reads at WCAG AA (4.5:1), else full text. */
const MUTED = { [DARK_TEXT]: "#475569", [LIGHT_TEXT]: "#cbd5e1" } as Record<string, string>;

/**
 * Dark or light text, whichever has more contrast on `hex`; pure black for the few mid tones
 * where neither reaches WCAG AA (4.5:1) and black does (it always does there).
 */
export function textOn(hex: string): string {
  const text = contrast(DARK_TEXT, hex) >= contrast(LIGHT_TEXT, hex) ? DARK_TEXT : LIGHT_TEXT;
  return contrast(text, hex) >= 4.5 ? text : "#000000";
}

/** The card's surface in the light theme (client/style.css `--tg-card`). */
const LIGHT_CARD = "#ffffff";

/**
 * `hex` as text on the light `surface`: itself when it reads there at WCAG AA (4.5:1), else the
 * same hue darkened just enough (a yellow or white brand colour would vanish on the card).
 */
export function readableOn(hex: string, surface: string = LIGHT_CARD): string {
  let [r, g, b] = rgb(hex);
  const out = () =>
    "#" + [r, g, b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
  // Each step takes a tenth off every channel; black on a light surface always reads, so this ends.
  for (let i = 0; i < 60 && contrast(out(), surface) < 4.5; i++) {
    [r, g, b] = [r * 0.9, g * 0.9, b * 0.9];
  }
  return out();
}

/** Muted text on `hex`: the softer shade of `textOn(hex)` when it keeps 4.5:1, else that text. */
export function mutedOn(hex: string): string {
  const text = textOn(hex);
  const soft = MUTED[text];
  return soft && contrast(soft, hex) >= 4.5 ? soft : text;
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
 * The inline theme: branding colours as custom properties. The page background takes the branding
 * colour in the light theme, and in the dark theme too when that colour is itself dark (a light
 * one would glare). Text on the page (`--tg-page-fg`, `--tg-page-muted`: footer, anything outside
 * the card) is picked for that background by WCAG contrast; the card keeps its own surface and
 * text colours, so it stays readable whatever the branding.
 */
export function themeCss(b: PageBranding): string {
  const bg = b.backgroundColor;
  const page = `--tg-bg:${bg};--tg-page-fg:${textOn(bg)};--tg-page-muted:${mutedOn(bg)}`;
  // Links and the place on the light card take the primary colour only where it reads there.
  const link = `--tg-link:${readableOn(b.primaryColor)}`;
  return `:root{--tg-primary:${b.primaryColor};--tg-on-primary:${textOn(b.primaryColor)}}` +
    `@media (prefers-color-scheme: light){:root{${page};${link}}}` +
    (textOn(bg) === LIGHT_TEXT ? `@media (prefers-color-scheme: dark){:root{${page}}}` : "");
}
