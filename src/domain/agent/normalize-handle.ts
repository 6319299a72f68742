export function normalizeHandle(raw: string): string {
  return raw.trim().toLowerCase();
}
