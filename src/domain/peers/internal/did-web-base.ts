/** `did:web:host` / `did:web:host%3A8443` → `https://host[:port]` (INK §12); other forms: null. */
export function didWebBase(did: string): string | null {
  const m = /^did:web:([A-Za-z0-9.-]+)(?:%3A(\d{1,5}))?$/.exec(did);
  if (!m) return null;
  const port = m[2] ? Number(m[2]) : null;
  if (port !== null && (port < 1 || port > 65535)) return null;
  return `https://${m[1]!.toLowerCase()}${port !== null ? `:${port}` : ""}`;
}
