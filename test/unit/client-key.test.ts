import { describe, expect, test } from "bun:test";
import { clientKey } from "../../src/security/client-key.ts";

describe("clientKey: what a client's address counts under in the sign-in limits", () => {
  test("IPv4 as is; no address is 'unknown'", () => {
    expect(clientKey("203.0.113.7")).toBe("203.0.113.7");
    expect(clientKey(null)).toBe("unknown");
    expect(clientKey("")).toBe("unknown");
  });

  test("every address of one IPv6 /64 is one key, whatever its spelling; the next /64 is another", () => {
    const keys = ["2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:0DB8:0001:0002:0:0:0:9", "2001:db8:1:2:a:b:c:d"].map(clientKey);
    expect(new Set(keys)).toEqual(new Set(["2001:db8:1:2::/64"]));
    expect(clientKey("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientKey("::1")).toBe("0:0:0:0::/64");
    expect(clientKey("fe80::1")).toBe("fe80:0:0:0::/64");
  });

  test("an IPv4-mapped IPv6 address counts as the IPv4 it carries", () => {
    expect(clientKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientKey("::ffff:cb00:7107")).toBe("203.0.113.7");
  });

  test("text that is not an address counts under itself (never merged with a real one)", () => {
    expect(clientKey("not:an:address")).toBe("not:an:address");
    expect(clientKey("fe80::1%eth0")).toBe("fe80::1%eth0");
  });
});
