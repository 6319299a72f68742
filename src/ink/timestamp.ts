// Strict RFC 3339 profile → epoch milliseconds (INK §5, frozen) and the freshness window (INK §8).

/** Freshness window in ms, both bounds inclusive (INK §8). */
export const MAX_AGE_MS = 300_000;
export const MAX_FUTURE_MS = 30_000;

const MAX_TIMESTAMP_UNITS = 64;
const STRICT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;
// Handshake messages use a narrower grammar: UTC `Z` only (INK §17, [C10]).
const HANDSHAKE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z$/;

/**
 * Epoch ms of a strict INK timestamp, or null. Fractions are truncated to ms, which floors
 * (`1969-12-31T23:59:59.9999Z` → −1); the year is literal (`0099` is year 99); no leap seconds.
 */
export function parseTimestamp(value: unknown): number | null {
  if (typeof value !== "string" || value.length > MAX_TIMESTAMP_UNITS) return null;
  const m = STRICT.exec(value);
  if (m === null) return null;
  let offsetMin = 0;
  if (m[8] !== undefined) {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) return null;
    offsetMin = (oh * 60 + om) * (m[8] === "-" ? -1 : 1);
  }
  const base = civilToMs(m);
  return base === null ? null : base - offsetMin * 60_000;
}

/** Epoch ms of a handshake-grammar timestamp (`Z` only), or null (INK §17). */
export function parseHandshakeTimestamp(value: unknown): number | null {
  if (typeof value !== "string" || value.length > MAX_TIMESTAMP_UNITS) return null;
  const m = HANDSHAKE.exec(value);
  return m === null ? null : civilToMs(m);
}

export type Freshness = "fresh" | "timestamp_expired" | "timestamp_too_far_future";

/** INK §8: reject more than 30 s ahead or more than 300 s old; the bounds themselves are fresh. */
export function checkFreshness(timestampMs: number, nowMs: number): Freshness {
  const drift = timestampMs - nowMs;
  if (drift > MAX_FUTURE_MS) return "timestamp_too_far_future";
  if (-drift > MAX_AGE_MS) return "timestamp_expired";
  return "fresh";
}

/** Emit form satisfying both grammars: `YYYY-MM-DDTHH:MM:SS.sssZ` (years 0000–9999). */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

function civilToMs(m: RegExpExecArray): number | null {
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const frac = m[7] ?? "";
  const millis = frac === "" ? 0 : Number((frac + "00").slice(0, 3));
  const days = daysFromCivil(year, month, day);
  return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm); Date.UTC would
// remap years 0–99 onto 1900–1999.
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
