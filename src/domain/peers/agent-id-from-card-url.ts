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
