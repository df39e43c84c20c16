/**
 * Putting values into messages and formatting them for a language with `Intl`: numbers,
 * percentages, durations. Plain functions over a catalogue the caller holds, so the page script
 * carries only the one catalogue the server embedded, never all of them.
 */
import type { Catalogue, MessageKey } from "./messages/en.ts";

/** The message for `key` with each `{name}` replaced by its value (unknown names stay). */
export function t(
  m: Catalogue,
  key: MessageKey,
  values: Record<string, string | number> = {},
): string {
  return m[key].replace(/\{(\w+)\}/g, (all, name) => name in values ? String(values[name]) : all);
}

/** A message cut at its `{name}` marks: text pieces and the names between them, in order. */
export function pieces(m: Catalogue, key: MessageKey): { text: string[]; names: string[] } {
  const split = m[key].split(/\{(\w+)\}/);
  return {
    text: split.filter((_, i) => i % 2 === 0),
    names: split.filter((_, i) => i % 2 === 1),
  };
}

/** A whole number in the language's digits and grouping. */
export function num(lang: string, n: number): string {
  return new Intl.NumberFormat(lang, { maximumFractionDigits: 0 }).format(n);
}

/** A share (0 to 1) as a short percentage: "12 %", "0,4 %", "less than 0.1%". */
export function percentOf(m: Catalogue, lang: string, p: number): string {
  const share = Math.max(0, Math.min(1, p));
  const f = (v: number, digits: number) =>
    new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: digits }).format(v);
  if (share > 0 && share < 0.001) return t(m, "time.under", { value: f(0.001, 1) });
  return f(share, share >= 0.1 ? 0 : 1);
}

/** `n` of a unit in words ("5 minutes", "5 Minuten", "5分"): Intl chooses the plural form. */
export function unitOf(lang: string, n: number, unit: "second" | "minute" | "hour"): string {
  return new Intl.NumberFormat(lang, { style: "unit", unit, unitDisplay: "long" }).format(n);
}

/** An estimated wait in words, coarse enough that it does not flicker between check-ins. */
export function waitText(m: Catalogue, lang: string, seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return m["time.unknown"];
  if (seconds < 60) return m["time.underMinute"];
  if (seconds >= 86400) return m["time.overDay"];
  const minutes = Math.round(seconds / 60);
  const duration = minutes < 60
    ? unitOf(lang, minutes, "minute")
    : unitOf(lang, Math.round(seconds / 1800) / 2, "hour");
  return t(m, "time.about", { duration });
}

/** A hold's time left, spoken once when it starts ("2 minutes", "about 1 minute", "45 seconds"). */
export function spokenLeft(m: Catalogue, lang: string, ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s >= 120) return unitOf(lang, Math.round(s / 60), "minute");
  return s >= 60 ? t(m, "time.about", { duration: unitOf(lang, 1, "minute") }) : unitOf(
    lang,
    s,
    "second",
  );
}
