import { agentIdFromCardUrl } from "./agent-id-from-card-url.ts";

/**
 * Whether `url` is an INK card URL of agent `from` (…/ink/v1/<enc(from)>/agent.json, or the legacy
 * …/agents/<id>/agent.json), and nothing else: https, no credentials, query or fragment. The only
 * URLs a stranger may name for the node to fetch (a listing's card, a first-contact hint), so the
 * node is never made to GET an arbitrary path or query on someone's host.
 */
export function isCardUrlOf(url: string, from: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== "https:" || parsed.username || parsed.password || parsed.search || parsed.hash || url.includes("?") || url.includes("#")) return false;
  return agentIdFromCardUrl(url) === from;
}
