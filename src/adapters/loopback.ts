/**
 * http is accepted only for loopback hosts (a provider under test on this machine). Its own module
 * so that the settings checks do not load the OIDC client (arctic, ~90 modules) at every start.
 */
export function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
