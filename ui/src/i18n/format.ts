// Numbers, sizes, durations, dates and lists as the window's language
// writes them (Intl, with the language i18next shows now).

import i18n, { currentLanguage } from "./index";

const cache = new Map<string, Intl.NumberFormat>();

function numberFormat(options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${currentLanguage()}|${JSON.stringify(options)}`;
  let f = cache.get(key);
  if (!f) {
    f = new Intl.NumberFormat(currentLanguage(), options);
    cache.set(key, f);
  }
  return f;
}

/** A number as the language writes it: "8,192", "8 192", "8.192". */
export function formatNumber(n: number, options: Intl.NumberFormatOptions = {}): string {
  return numberFormat(options).format(n);
}

/** A number with exactly `digits` decimals: "0.35", "0,35". */
export function formatDecimal(n: number, digits: number): string {
  return formatNumber(n, { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A score with its sign: "+5", "−3", "0". */
export function formatSigned(n: number): string {
  return formatNumber(n, { signDisplay: "exceptZero" });
}

/** A share (0–1) as a percentage: "42%", "42 %". */
export function formatPercent(share: number): string {
  return formatNumber(share, { style: "percent", maximumFractionDigits: 0 });
}

/** Milliseconds: "1,234 ms". */
export function formatMs(ms: number): string {
  return formatNumber(Math.round(ms), { style: "unit", unit: "millisecond", unitDisplay: "short" });
}

const SIZE_UNITS = ["kilobyte", "megabyte", "gigabyte", "terabyte"] as const;

/** "97.8 MB", "97,8 Mo": a size as a file manager says it (powers of 1000). */
export function formatSize(bytes: number): string {
  if (Math.abs(bytes) < 1000) return i18n.t("format.bytes", { count: bytes, value: formatNumber(bytes) });
  let value = bytes / 1000;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < SIZE_UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return formatNumber(value, {
    style: "unit",
    unit: SIZE_UNITS[unit],
    unitDisplay: "short",
    minimumFractionDigits: 1,
    maximumFractionDigits: 1,
  });
}

/** "135M", "1.5B", "1,5 Md": a count as model names say it, in the language's short words. */
export function formatCount(n: number): string {
  if (n >= 1e9) return formatNumber(n, { notation: "compact", minimumFractionDigits: 1, maximumFractionDigits: 1 });
  if (n >= 1e3) return formatNumber(n, { notation: "compact", maximumFractionDigits: 0 });
  return formatNumber(n);
}

/** A moment (an RFC 3339 date) as the language writes it, date and time. */
export function formatDateTime(value: string | number | Date): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return new Intl.DateTimeFormat(currentLanguage(), { dateStyle: "medium", timeStyle: "short" }).format(date);
}

/** "a, b and c" (`and`) or "a or b" (`or`), as the language lists things. */
export function formatList(items: string[], kind: "and" | "or" = "and"): string {
  try {
    return new Intl.ListFormat(currentLanguage(), { type: kind === "and" ? "conjunction" : "disjunction" }).format(items);
  } catch {
    return items.join(", ");
  }
}

/** A language's name in the window's language ("French", "français"); `fallback` when unknown. */
export function languageName(code: string, fallback = code): string {
  try {
    return new Intl.DisplayNames([currentLanguage()], { type: "language" }).of(code) ?? fallback;
  } catch {
    return fallback;
  }
}
