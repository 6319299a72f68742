/** A stored unix-ms time as RFC 3339 (UTC, milliseconds), null for none: how every view writes times. */
export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
