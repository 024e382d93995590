// Display formatting only (units, rounding, durations): no figure is derived here.

export function num(v: number | null | undefined, digits = 1): string {
  if (v === null || v === undefined || Number.isNaN(v)) return "—";
  return v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return "—";
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m ${String(r).padStart(2, "0")}s`;
  return `${r}s`;
}

/** A change in percent with its sign: "+12.5%", "−3.0%" (the report's minus sign). */
export function signedPct(v: number | null | undefined, digits = 1): string {
  if (v === null || v === undefined || Number.isNaN(v)) return "—";
  const text = num(Math.abs(v), digits);
  if (Number(text) === 0) return `±${text}%`;
  return `${v > 0 ? "+" : "−"}${text}%`;
}

/** "1 thread", "2 threads", "0 cells": a count in DB Dyno's own words, as the Rust side's
 *  `wording::count` writes it. */
export function count(n: number, noun: string): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? noun : plural(noun)}`;
}

function plural(noun: string): string {
  if (noun === "query") return "queries";
  return /(s|sh|ch)$/.test(noun) ? `${noun}es` : `${noun}s`;
}
