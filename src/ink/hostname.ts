// Private-hostname (SSRF) classification (INK §14): a pure function of the hostname string.
// Static only: the caller must still pin the resolved IP at connect time.

export type HostClass = "public" | "private";

/**
 * Classify a hostname before any outbound fetch. `public` = may be fetched; `private` covers
 * localhost names, non-public IPv4/IPv6 literals and malformed literals. Beyond INK §14 it also
 * classifies the WHATWG URL parser's readings of numeric hosts (`0x7f.1`, `0177.0.0.1`, `127.1`)
 * and rejects if any reading is private or unparseable ([C18], docs/decisions/ink-vectors-vs-spec.md).
 */
export function classifyHost(hostname: unknown): HostClass {
  if (typeof hostname !== "string") return "private";
  let h = hostname.toLowerCase();
  while (h.endsWith(".")) h = h.slice(0, -1);
  if (h === "" || h === "localhost" || h.endsWith(".localhost")) return "private";
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h === "") return "private";

  const quad = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (quad !== null) {
    const octets = quad.slice(1).map(Number);
    if (octets.some((o) => o > 255)) return "private";
    if (isPrivateIpv4(octets)) return "private";
  } else if (/^\d+$/.test(h)) {
    return "private"; // INK §14 step 3: a bare integer host (e.g. 2130706433)
  }
  if (h.includes(":")) return classifyIpv6(h);

  // WHATWG reading: a host whose last label is numeric is an IPv4 address to a URL parser.
  const whatwg = whatwgIpv4(h);
  if (whatwg === "invalid") return "private";
  if (whatwg !== null && isPrivateIpv4(whatwg)) return "private";
  return "public";
}

/** True when `classifyHost` says the host may be fetched. */
export function isPublicHostname(hostname: unknown): boolean {
  return classifyHost(hostname) === "public";
}

function isPrivateIpv4(o: readonly number[]): boolean {
  const [a = 0, b = 0, c = 0] = o;
  return (
    a === 0 ||
    a === 10 ||
    (a === 100 && b >= 64 && b <= 127) ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) ||
    (a === 192 && b === 31 && c === 196) ||
    (a === 192 && b === 52 && c === 193) ||
    (a === 192 && b === 88 && c === 99) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 175 && c === 48) ||
    (a === 198 && (b === 18 || b === 19)) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113) ||
    a >= 224
  );
}

function classifyIpv6(h: string): HostClass {
  if (h.includes("%")) return "private"; // zone ids
  const g = expandIpv6(h);
  if (g === null) return "private";
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const v4 = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255];
  // ::ffff:0:0/96 maps IPv4; classify the embedded address.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) {
    return isPrivateIpv4(v4(g6, g7)) ? "private" : "public";
  }
  // ::/96 (unspecified, loopback and deprecated IPv4-compatible forms) is never a public peer.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return "private";
  if ((g0 & 0xffc0) === 0xfe80) return "private"; // fe80::/10
  if ((g0 & 0xfe00) === 0xfc00) return "private"; // fc00::/7
  if ((g0 & 0xff00) === 0xff00) return "private"; // ff00::/8
  if (g0 === 0x2001 && g1 === 0) return "private"; // Teredo 2001::/32
  if (g0 === 0x2001 && g1 === 2 && g2 === 0) return "private"; // 2001:2::/48
  if (g0 === 0x2001 && (g1 & 0xfff0) === 0x10) return "private"; // 2001:10::/28
  if (g0 === 0x2001 && (g1 & 0xfff0) === 0x20) return "private"; // 2001:20::/28
  if (g0 === 0x2001 && g1 === 0xdb8) return "private"; // 2001:db8::/32
  if (g0 === 0x2002 && isPrivateIpv4(v4(g1, g2))) return "private"; // 6to4 of a private v4
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return "private";
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return "private"; // 64:ff9b:1::/48
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return "private"; // 100::/64
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 1) return "private"; // 100:0:0:1::/64
  if ((g0 & 0xfff0) === 0x3ff0) return "private"; // 3fff::/20
  if ((g0 & 0xff00) === 0x5f00) return "private"; // 5f00::/16
  return "public";
}

/** String-level expansion to 8 groups; null for anything malformed (INK §14 step 4). */
function expandIpv6(h: string): number[] | null {
  let text = h;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  const last = text.slice(lastColon + 1);
  if (last.includes(".")) {
    const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(last);
    if (m === null) return null;
    const o = m.slice(1).map(Number);
    if (o.some((x) => x > 255)) return null;
    tail = [((o[0] as number) << 8) | (o[1] as number), ((o[2] as number) << 8) | (o[3] as number)];
    text = text.slice(0, lastColon + 1) + "0:0"; // placeholder groups, filled in below
  }
  const parts = text.split("::");
  if (parts.length > 2) return null;
  const parse = (s: string): number[] | null => {
    if (s === "") return [];
    const out: number[] = [];
    for (const grp of s.split(":")) {
      if (!/^[0-9a-f]{1,4}$/.test(grp)) return null;
      out.push(parseInt(grp, 16));
    }
    return out;
  };
  const head = parse(parts[0] as string);
  if (head === null) return null;
  let groups: number[];
  if (parts.length === 2) {
    const rest = parse(parts[1] as string);
    if (rest === null || head.length + rest.length > 7) return null;
    groups = [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
  } else {
    if (head.length !== 8) return null;
    groups = head;
  }
  if (tail.length === 2) {
    groups[6] = tail[0] as number;
    groups[7] = tail[1] as number;
  }
  return groups;
}

/**
 * WHATWG URL IPv4 parsing: null when the host is not numeric-looking (a DNS name), "invalid" when
 * a URL parser would reject it, else the four octets it would connect to.
 */
function whatwgIpv4(h: string): number[] | "invalid" | null {
  const parts = h.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  const lastPart = parts[parts.length - 1] ?? "";
  if (!/^(0x[0-9a-f]*|\d+)$/.test(lastPart)) return null;
  if (parts.length > 4) return "invalid";
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p, 8);
    else if (/^\d+$/.test(p)) n = /^0\d/.test(p) ? NaN : Number(p);
    else return "invalid";
    if (!Number.isFinite(n)) return "invalid";
    nums.push(n);
  }
  const lastN = nums.pop() as number;
  if (nums.some((n) => n > 255) || lastN >= 256 ** (4 - nums.length)) return "invalid";
  let value = lastN;
  nums.forEach((n, i) => (value += n * 256 ** (3 - i)));
  return [(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
}
