/**
 * Handles are display names for URLs (`GET /{handle}`), never identifiers (INK §2.1): lower-case
 * letters, digits and inner hyphens, 1–32 characters, and never a path the node itself serves.
 */
export const HANDLE_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

export const RESERVED_PATHS = new Set([
  "health", "discover", "api", "auth", "ext", "marketplace", "agents", "ink", "ai.txt", ".well-known",
  "openapi", "admin", "login", "logout", "static", "assets", "favicon.ico", "robots.txt", "www", "kith",
  "settings", "console", "app", "oauth", "callback", "metrics", "livez", "readyz", "status", "docs",
]);

/** Null when valid, otherwise the reason. */
export function handleProblem(handle: string): string | null {
  if (!HANDLE_PATTERN.test(handle)) return "a handle is 1-32 lower-case letters, digits or inner hyphens";
  if (RESERVED_PATHS.has(handle)) return `"${handle}" is reserved by the node`;
  return null;
}
