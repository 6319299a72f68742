// Endpoint URL grammar (INK §11) for card `endpoint`, `inboxEndpoint` and audit-service endpoints.
// Pinned as text first so that no two URL parsers can disagree about what the card names.
import { utf8Length } from "./bytes.ts";

const MAX_ENDPOINT_BYTES = 2048;

/**
 * INK §11 endpoint grammar. On top of the spec text it also rejects, as the vectors require:
 * backslashes, `%` not followed by two hex digits, any `%` in the authority (percent-encoded
 * hosts, IPv6 zone ids), and — Kith's own tightening — anything outside printable ASCII, so the
 * signature-base PATH can never depend on a parser's percent-encoding.
 */
export function isValidEndpointUrl(value: unknown): value is string {
  if (typeof value !== "string" || value.length === 0) return false;
  if (utf8Length(value) > MAX_ENDPOINT_BYTES) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || c === 0x5c /* \ */ || c === 0x23 /* # */) return false;
    if (c === 0x25 /* % */ && !(isHex(value.charCodeAt(i + 1)) && isHex(value.charCodeAt(i + 2)))) return false;
  }
  if (!value.startsWith("https://")) return false;
  const rest = value.slice("https://".length);
  const end = firstIndexOf(rest, "/", "?");
  const authority = end < 0 ? rest : rest.slice(0, end);
  if (authority.length === 0 || authority.includes("@") || authority.includes("%")) return false;
  if (!validPort(authority)) return false;
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === "https:" && url.hostname !== "" && url.username === "" && url.password === "" && url.hash === "";
}

/**
 * PATH line of the transport signature base for an endpoint (INK §6.1 step 3): the URL's path
 * component, no query, no fragment. Null when the endpoint fails the grammar.
 */
export function endpointPath(endpoint: unknown): string | null {
  if (!isValidEndpointUrl(endpoint)) return null;
  return new URL(endpoint).pathname;
}

/** The hostname of a valid endpoint (for the SSRF gate), brackets stripped for IPv6. */
export function endpointHostname(endpoint: unknown): string | null {
  if (!isValidEndpointUrl(endpoint)) return null;
  const host = new URL(endpoint).hostname;
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

function validPort(authority: string): boolean {
  let hostPort = authority;
  if (hostPort.startsWith("[")) {
    const close = hostPort.indexOf("]");
    if (close < 0) return false;
    hostPort = hostPort.slice(close + 1);
    if (hostPort === "") return true;
    if (!hostPort.startsWith(":")) return false;
  }
  const colon = hostPort.lastIndexOf(":");
  if (colon < 0) return true;
  const port = hostPort.slice(colon + 1);
  if (!/^[0-9]+$/.test(port)) return false;
  const n = Number(port);
  return n >= 1 && n <= 65535;
}

function firstIndexOf(s: string, a: string, b: string): number {
  const i = s.indexOf(a);
  const j = s.indexOf(b);
  if (i < 0) return j;
  if (j < 0) return i;
  return Math.min(i, j);
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
