import { describe, expect, test } from "bun:test";
import { classifyHost } from "../../src/ink/index.ts";

/**
 * The SSRF classifier against the IANA special-purpose registries, written out by hand from the
 * registries (not from the implementation's table): for each block, its first and last address
 * are non-public, and where the neighbouring address is ordinary unicast, that one is public.
 * Sources: https://www.iana.org/assignments/iana-ipv4-special-registry and
 * https://www.iana.org/assignments/iana-ipv6-special-registry (both read 2025), RFC 4291, RFC 3879.
 */
type Block = { range: string; first: string; last: string; before?: string; after?: string };

const IPV4: Block[] = [
  { range: "0.0.0.0/8", first: "0.0.0.0", last: "0.255.255.255", after: "1.0.0.0" },
  { range: "10.0.0.0/8", first: "10.0.0.0", last: "10.255.255.255", before: "9.255.255.255", after: "11.0.0.0" },
  { range: "100.64.0.0/10", first: "100.64.0.0", last: "100.127.255.255", before: "100.63.255.255", after: "100.128.0.0" },
  { range: "127.0.0.0/8", first: "127.0.0.0", last: "127.255.255.255", before: "126.255.255.255", after: "128.0.0.0" },
  { range: "169.254.0.0/16", first: "169.254.0.0", last: "169.254.255.255", before: "169.253.255.255", after: "169.255.0.0" },
  { range: "172.16.0.0/12", first: "172.16.0.0", last: "172.31.255.255", before: "172.15.255.255", after: "172.32.0.0" },
  { range: "192.0.0.0/24 (with 192.0.0.0/29, .8, .9, .10, .170, .171)", first: "192.0.0.0", last: "192.0.0.255", before: "191.255.255.255", after: "192.0.1.0" },
  { range: "192.0.0.9/32 PCP anycast", first: "192.0.0.9", last: "192.0.0.9" },
  { range: "192.0.0.170/32 NAT64 discovery", first: "192.0.0.170", last: "192.0.0.171" },
  { range: "192.0.2.0/24", first: "192.0.2.0", last: "192.0.2.255", before: "192.0.1.255", after: "192.0.3.0" },
  { range: "192.31.196.0/24", first: "192.31.196.0", last: "192.31.196.255", before: "192.31.195.255", after: "192.31.197.0" },
  { range: "192.52.193.0/24", first: "192.52.193.0", last: "192.52.193.255", before: "192.52.192.255", after: "192.52.194.0" },
  { range: "192.88.99.0/24 (with 192.88.99.2/32)", first: "192.88.99.0", last: "192.88.99.255", before: "192.88.98.255", after: "192.88.100.0" },
  { range: "192.168.0.0/16", first: "192.168.0.0", last: "192.168.255.255", before: "192.167.255.255", after: "192.169.0.0" },
  { range: "192.175.48.0/24", first: "192.175.48.0", last: "192.175.48.255", before: "192.175.47.255", after: "192.175.49.0" },
  { range: "198.18.0.0/15", first: "198.18.0.0", last: "198.19.255.255", before: "198.17.255.255", after: "198.20.0.0" },
  { range: "198.51.100.0/24", first: "198.51.100.0", last: "198.51.100.255", before: "198.51.99.255", after: "198.51.101.0" },
  { range: "203.0.113.0/24", first: "203.0.113.0", last: "203.0.113.255", before: "203.0.112.255", after: "203.0.114.0" },
  { range: "224.0.0.0/4 multicast", first: "224.0.0.0", last: "239.255.255.255", before: "223.255.255.255" },
  { range: "240.0.0.0/4 reserved", first: "240.0.0.0", last: "255.255.255.254" },
  { range: "255.255.255.255/32 limited broadcast", first: "255.255.255.255", last: "255.255.255.255" },
];

const IPV6: Block[] = [
  { range: "::/128 unspecified", first: "::", last: "0:0:0:0:0:0:0:0" },
  { range: "::1/128 loopback", first: "::1", last: "0000:0000:0000:0000:0000:0000:0000:0001" },
  { range: "::/96 IPv4-compatible (deprecated, RFC 4291)", first: "::0.0.0.2", last: "::8.8.8.8" },
  { range: "::ffff:0:0:0/96 IPv4-translated (RFC 2765)", first: "::ffff:0:0:0", last: "::ffff:0:ffff:ffff" },
  { range: "::ffff:0:0/96 IPv4-mapped, non-public v4", first: "::ffff:0.0.0.0", last: "::ffff:ffff:ffff" },
  { range: "64:ff9b::/96 IPv4-IPv6 translation", first: "64:ff9b::", last: "64:ff9b::ffff:ffff" },
  { range: "64:ff9b:1::/48 local-use translation", first: "64:ff9b:1::", last: "64:ff9b:1:ffff:ffff:ffff:ffff:ffff" },
  { range: "100::/64 discard-only", first: "100::", last: "100::ffff:ffff:ffff:ffff" },
  { range: "100:0:0:1::/64 dummy prefix", first: "100:0:0:1::", last: "100:0:0:1:ffff:ffff:ffff:ffff" },
  { range: "2001::/23 IETF protocol assignments", first: "2001::", last: "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", before: "2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", after: "2001:200::" },
  { range: "2001::/32 Teredo", first: "2001:0:4136:e378:8000:63bf:3fff:fdd2", last: "2001:0:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "2001:1::1/128 PCP anycast", first: "2001:1::1", last: "2001:1::1" },
  { range: "2001:1::2/128 TURN anycast", first: "2001:1::2", last: "2001:1::2" },
  { range: "2001:1::3/128 DNS-SD SRP anycast", first: "2001:1::3", last: "2001:1::3" },
  { range: "2001:2::/48 benchmarking", first: "2001:2::", last: "2001:2:0:ffff:ffff:ffff:ffff:ffff" },
  { range: "2001:3::/32 AMT", first: "2001:3::", last: "2001:3:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "2001:4:112::/48 AS112-v6", first: "2001:4:112::", last: "2001:4:112:ffff:ffff:ffff:ffff:ffff" },
  { range: "2001:10::/28 ORCHID (deprecated)", first: "2001:10::", last: "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "2001:20::/28 ORCHIDv2", first: "2001:20::", last: "2001:2f:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "2001:30::/28 drone remote ID DETs", first: "2001:30::", last: "2001:3f:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "2001:db8::/32 documentation", first: "2001:db8::", last: "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", before: "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", after: "2001:db9::" },
  { range: "2002::/16 6to4 of a non-public v4", first: "2002:0a00:0001::1", last: "2002:c0a8:ffff:ffff:ffff:ffff:ffff:ffff", before: "2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "2620:4f:8000::/48 direct delegation AS112", first: "2620:4f:8000::", last: "2620:4f:8000:ffff:ffff:ffff:ffff:ffff", before: "2620:4f:7fff:ffff:ffff:ffff:ffff:ffff", after: "2620:4f:8001::" },
  { range: "3fff::/20 documentation", first: "3fff::", last: "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", before: "3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "5f00::/16 segment routing SIDs", first: "5f00::", last: "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "fc00::/7 unique-local", first: "fc00::", last: "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "fe80::/10 link-local", first: "fe80::", last: "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "fec0::/10 site-local (deprecated, RFC 3879)", first: "fec0::", last: "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "ff00::/8 multicast", first: "ff00::", last: "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
  // Outside 2000::/3 (global unicast, the IANA IPv6 address space registry) nothing is allocated.
  { range: "4000::/3 unallocated", first: "4000::", last: "5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "::/8 reserved by the IETF", first: "::1:0:0:0", last: "ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
  { range: "e000::/4 unallocated", first: "e000::", last: "efff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
];

describe("SSRF classifier: every IANA special-purpose block is non-public", () => {
  for (const block of [...IPV4, ...IPV6]) {
    test(block.range, () => {
      for (const address of [block.first, block.last]) expect({ address, class: classifyHost(address) }).toEqual({ address, class: "private" });
      if (!block.first.includes(":")) return;
      expect(classifyHost(`[${block.first}]`)).toBe("private");
    });
    for (const side of ["before", "after"] as const) {
      const neighbour = block[side];
      if (neighbour) test(`${block.range}: ${neighbour}, just ${side} it, is public`, () => expect(classifyHost(neighbour)).toBe("public"));
    }
  }

  test("global unicast around the blocks stays public (the INK §14 accept cases, and real peers)", () => {
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "[2a00:1450:4001:80b::200e]", "::ffff:8.8.8.8", "::ffff:808:808", "2002:808:808::1", "2c0f:fb50::1"]) {
      expect({ address, class: classifyHost(address) }).toEqual({ address, class: "public" });
    }
  });
});
