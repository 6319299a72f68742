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

