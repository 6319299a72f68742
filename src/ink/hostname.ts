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

/**
 * One special-use block: `prefix` as numbers (4 octets or 8 groups), its length in bits, and where
 * it comes from. Every block of the IANA special-purpose registries counts as non-public, also the
 * ones marked "globally reachable" (anycast relays, AS112 sinks): none of them hosts an INK peer.
 */
export type SpecialRange = { prefix: readonly number[]; bits: number; name: string };

/**
 * IPv4 (INK §14 step 2): the IANA IPv4 Special-Purpose Address Registry (RFC 6890 and updates;
 * its /32 entries sit inside 192.0.0.0/24), plus multicast (RFC 5771) and the rest of 240/4.
 */
export const IPV4_SPECIAL_RANGES: readonly SpecialRange[] = [
  { prefix: [0, 0, 0, 0], bits: 8, name: '"this network" (RFC 791)' },
  { prefix: [10, 0, 0, 0], bits: 8, name: "private-use (RFC 1918)" },
  { prefix: [100, 64, 0, 0], bits: 10, name: "shared address space (RFC 6598)" },
  { prefix: [127, 0, 0, 0], bits: 8, name: "loopback (RFC 1122)" },
  { prefix: [169, 254, 0, 0], bits: 16, name: "link-local (RFC 3927)" },
  { prefix: [172, 16, 0, 0], bits: 12, name: "private-use (RFC 1918)" },
  { prefix: [192, 0, 0, 0], bits: 24, name: "IETF protocol assignments (RFC 6890)" },
  { prefix: [192, 0, 2, 0], bits: 24, name: "documentation TEST-NET-1 (RFC 5737)" },
  { prefix: [192, 31, 196, 0], bits: 24, name: "AS112-v4 (RFC 7535)" },
  { prefix: [192, 52, 193, 0], bits: 24, name: "AMT (RFC 7450)" },
  { prefix: [192, 88, 99, 0], bits: 24, name: "deprecated 6to4 relay anycast (RFC 7526)" },
  { prefix: [192, 168, 0, 0], bits: 16, name: "private-use (RFC 1918)" },
  { prefix: [192, 175, 48, 0], bits: 24, name: "direct delegation AS112 service (RFC 7534)" },
  { prefix: [198, 18, 0, 0], bits: 15, name: "benchmarking (RFC 2544)" },
  { prefix: [198, 51, 100, 0], bits: 24, name: "documentation TEST-NET-2 (RFC 5737)" },
  { prefix: [203, 0, 113, 0], bits: 24, name: "documentation TEST-NET-3 (RFC 5737)" },
  { prefix: [224, 0, 0, 0], bits: 4, name: "multicast (RFC 5771)" },
  { prefix: [240, 0, 0, 0], bits: 4, name: "reserved (RFC 1112), limited broadcast (RFC 919)" },
];

/**
 * IPv6: the IANA IPv6 Special-Purpose Address Registry (RFC 6890 and updates) and the other
 * special blocks of RFC 4291 and its successors. Outside 2000::/3 every address is refused anyway
 * (`classifyIpv6`); the blocks there are listed so each has its own test. `::ffff:0:0/96`
 * (IPv4-mapped) and 2002::/16 (6to4) are classified by the IPv4 address they carry instead.
 */
export const IPV6_SPECIAL_RANGES: readonly SpecialRange[] = [
  { prefix: [0, 0, 0, 0, 0, 0, 0, 0], bits: 128, name: "unspecified (RFC 4291)" },
  { prefix: [0, 0, 0, 0, 0, 0, 0, 1], bits: 128, name: "loopback (RFC 4291)" },
  { prefix: [0, 0, 0, 0, 0, 0, 0, 0], bits: 96, name: "deprecated IPv4-compatible (RFC 4291)" },
  { prefix: [0, 0, 0, 0, 0xffff, 0, 0, 0], bits: 96, name: "IPv4-translated (RFC 2765)" },
  { prefix: [0x64, 0xff9b, 0, 0, 0, 0, 0, 0], bits: 96, name: "IPv4/IPv6 translation (RFC 6052)" },
  { prefix: [0x64, 0xff9b, 1, 0, 0, 0, 0, 0], bits: 48, name: "local-use IPv4/IPv6 translation (RFC 8215)" },
  { prefix: [0x100, 0, 0, 0, 0, 0, 0, 0], bits: 64, name: "discard-only (RFC 6666)" },
  { prefix: [0x100, 0, 0, 1, 0, 0, 0, 0], bits: 64, name: "dummy prefix (RFC 9780)" },
  { prefix: [0x2001, 0, 0, 0, 0, 0, 0, 0], bits: 23, name: "IETF protocol assignments (RFC 2928): Teredo, PCP/TURN/DNS-SD anycast, benchmarking, AMT, AS112-v6, ORCHID, ORCHIDv2, drone DETs" },
  { prefix: [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], bits: 32, name: "documentation (RFC 3849)" },
  { prefix: [0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0], bits: 48, name: "direct delegation AS112 service (RFC 7534)" },
  { prefix: [0x3fff, 0, 0, 0, 0, 0, 0, 0], bits: 20, name: "documentation (RFC 9637)" },
  { prefix: [0x5f00, 0, 0, 0, 0, 0, 0, 0], bits: 16, name: "segment routing SIDs (RFC 9602)" },
  { prefix: [0xfc00, 0, 0, 0, 0, 0, 0, 0], bits: 7, name: "unique-local (RFC 4193)" },
  { prefix: [0xfe80, 0, 0, 0, 0, 0, 0, 0], bits: 10, name: "link-local unicast (RFC 4291)" },
  { prefix: [0xfec0, 0, 0, 0, 0, 0, 0, 0], bits: 10, name: "deprecated site-local (RFC 3879)" },
  { prefix: [0xff00, 0, 0, 0, 0, 0, 0, 0], bits: 8, name: "multicast (RFC 4291)" },
];

function isPrivateIpv4(o: readonly number[]): boolean {
  return IPV4_SPECIAL_RANGES.some((r) => inRange(o, r, 8));
}

function classifyIpv6(h: string): HostClass {
  if (h.includes("%")) return "private"; // zone ids
  const g = expandIpv6(h);
  if (g === null) return "private";
  const v4 = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255];
  // ::ffff:0:0/96 maps IPv4 (INK §14 step 4): the embedded address decides.
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
    return isPrivateIpv4(v4(g[6]!, g[7]!)) ? "private" : "public";
  }
  // Only 2000::/3 is global unicast (IANA IPv6 Address Space registry): the rest is reserved,
  // special-use, local or multicast, and never a public peer.
  if ((g[0]! & 0xe000) !== 0x2000) return "private";
  if (IPV6_SPECIAL_RANGES.some((r) => inRange(g, r, 16))) return "private";
  if (g[0] === 0x2002 && isPrivateIpv4(v4(g[1]!, g[2]!))) return "private"; // 6to4 of a non-public v4
  return "public";
}

/** True when `address` (octets or groups of `width` bits) lies in `range`. */
function inRange(address: readonly number[], range: SpecialRange, width: number): boolean {
  let left = range.bits;
  for (let i = 0; left > 0; i++, left -= width) {
    const mask = left >= width ? (1 << width) - 1 : ((1 << width) - 1) ^ ((1 << (width - left)) - 1);
    if (((address[i] ?? 0) & mask) !== ((range.prefix[i] ?? 0) & mask)) return false;
  }
  return true;
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
