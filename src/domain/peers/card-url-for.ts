/**
 * INK §12: the only normative card path is `<base>/ink/v1/<agentId>/agent.json` with the agent id
 * percent-encoded as one segment, built on a parsed base whose own path is kept.
 */
export function cardUrlFor(baseUrl: string, agentId: string): string | null {
  if (agentId === "" || agentId.length > 256 || agentId === "." || agentId === ".." || /[/\\]/.test(agentId)) return null;
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return null;
  }
  if (base.protocol !== "https:" || base.username || base.password || base.search || base.hash) return null;
  const path = `${base.pathname.replace(/\/+$/, "")}/ink/v1/${encodeURIComponent(agentId)}/agent.json`;
  const url = new URL(base.origin + path);
  return url.pathname.endsWith(`/ink/v1/${encodeURIComponent(agentId)}/agent.json`) ? url.toString() : null;
}

/**
 * The agent id a card URL was built for (the last-but-one segment of an INK discovery path), so a
 * contact can be added from its card URL alone.
 */
export function agentIdFromCardUrl(cardUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(cardUrl);
  } catch {
    return null;
  }
  const m = /\/ink\/v1\/([^/]+)\/agent\.json$/.exec(url.pathname) ?? /\/agents\/([^/]+)\/agent\.json$/.exec(url.pathname);
  if (!m) return null;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
}

/** `did:web:host` / `did:web:host%3A8443` → `https://host[:port]` (INK §12); other forms: null. */
export function didWebBase(did: string): string | null {
  const m = /^did:web:([A-Za-z0-9.-]+)(?:%3A(\d{1,5}))?$/.exec(did);
  if (!m) return null;
  const port = m[2] ? Number(m[2]) : null;
  if (port !== null && (port < 1 || port > 65535)) return null;
  return `https://${m[1]!.toLowerCase()}${port !== null ? `:${port}` : ""}`;
}
