import { afterEach, describe, expect, test } from "bun:test";
import { consumeRateLimit } from "../../src/domain/rate-limit/consume-rate-limit.ts";
import { clientIpResolver } from "../../src/http/plugins/client-ip.ts";
import { createMemoryRateLimiter } from "../../src/security/rate-limit.ts";
import { bootTestApp, type TestNode } from "../helpers/boot.ts";

const rule = { limit: 3, windowMs: 60_000 };
let node: TestNode;
afterEach(() => node?.close());

describe("rate limiters", () => {
  test("memory: allows `limit` per window and key, then refuses with the seconds left; a new window resets", () => {
    const limiter = createMemoryRateLimiter();
    const t = 120_000 + 15_000;
    expect([1, 2, 3, 4].map(() => limiter.consume("b", "k", rule, t).allowed)).toEqual([true, true, true, false]);
    expect(limiter.consume("b", "k", rule, t).retryAfterSeconds).toBe(45);
    expect(limiter.consume("b", "other", rule, t).allowed).toBe(true);
    expect(limiter.consume("other-bucket", "k", rule, t).allowed).toBe(true);
    expect(limiter.consume("b", "k", rule, 180_000).allowed).toBe(true);
  });

  test("memory: a full bucket refuses new keys and never resets a live window; buckets do not share room", () => {
    const limiter = createMemoryRateLimiter({ maxKeysPerBucket: 10 });
    const t = 60_000 + 1_000;
    for (let i = 0; i < 3; i++) limiter.consume("b", "k0", rule, t);
    expect(limiter.consume("b", "k0", rule, t).allowed).toBe(false);
    const flood = Array.from({ length: 100 }, (_, i) => limiter.consume("b", `new${i}`, rule, t).allowed);
    expect(flood.filter(Boolean).length).toBe(9); // room for 10 keys, k0 included
    expect(limiter.consume("b", "k0", rule, t)).toMatchObject({ allowed: false, remaining: 0 }); // still spent
    expect(limiter.consume("b", "new0", rule, t)).toMatchObject({ allowed: true, remaining: 1 }); // known keys keep counting
    expect(limiter.consume("b", "new99", rule, t)).toMatchObject({ allowed: false, retryAfterSeconds: 59 });
    expect(limiter.consume("other", "k", rule, t).allowed).toBe(true); // another bucket has its own room
    // the window ends for every key at once: the table starts empty
    expect(limiter.consume("b", "new99", rule, 120_000).allowed).toBe(true);
    expect(limiter.consume("b", "k0", rule, 120_000)).toMatchObject({ allowed: true, remaining: 2 });
  });


  test("durable: survives a new connection (restart) and resets with the window", () => {
    node = bootTestApp();
    const ctx = node.ctx();
    expect([1, 2, 3, 4].map(() => consumeRateLimit(ctx, "email", "a@x", rule).allowed)).toEqual([true, true, true, false]);
    node.clock.advance(60_000);
    expect(consumeRateLimit(ctx, "email", "a@x", rule)).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe("client IP", () => {
  const req = (xff?: string) => new Request("http://localhost/", { headers: xff ? { "x-forwarded-for": xff } : {} });
  test("without KITH_TRUST_PROXY the header is ignored", () => {
    const ip = clientIpResolver({ trustProxy: false, remoteAddress: () => "203.0.113.9" });
    expect(ip(req("1.2.3.4"))).toBe("203.0.113.9");
  });
  test("behind a trusted proxy, the last hop (appended by the proxy) wins over client-written entries", () => {
    const ip = clientIpResolver({ trustProxy: true, remoteAddress: () => "127.0.0.1" });
    expect(ip(req("6.6.6.6, 198.51.100.7"))).toBe("198.51.100.7");
    expect(ip(req("2001:DB8::1"))).toBe("2001:db8::1");
    expect(ip(req("not-an-ip"))).toBe("127.0.0.1");
    expect(ip(req())).toBe("127.0.0.1");
  });
});
