/**
 * The key a client's address counts under in the sign-in limits and per-code try budgets: an IPv4
 * address as is, an IPv6 address by its /64 (one subscriber's LAN; addresses inside it are free
 * for the taking, and privacy addresses rotate within it), an IPv4-mapped IPv6 address as the
 * IPv4 it carries. Anything unparsable counts under its own text, no address under "unknown".
 */
export function clientKey(ip: string | null): string {
  if (ip === null || ip === "") return "unknown";
  if (!ip.includes(":")) return ip;
  const groups = ipv6Groups(ip);
  if (groups === null) return ip.toLowerCase();
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi, lo] = [groups[6]!, groups[7]!];
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}

/** Eight 16-bit groups, parsed by the WHATWG URL parser (which validates and canonicalizes). */
function ipv6Groups(ip: string): number[] | null {
  let host: string;
  try {
    host = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head = "", tail] = host.split("::");
  const split = (s: string) => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)));
  if (tail === undefined) return split(head);
  const h = split(head);
  const t = split(tail);
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}
