// The stranger-fetch budgets (adapters/fetch-budget.ts) with a fake PeerHttp: negative cache,
// global / per-host / per-source budgets, bounded memory.
import { describe, expect, test } from "bun:test";
import { createFetchBudget, DEFAULT_FETCH_BUDGET } from "../../src/adapters/fetch-budget.ts";
import type { PeerHttp, PeerResponse } from "../../src/adapters/peer-http.ts";
import { createMemoryRateLimiter } from "../../src/security/rate-limit.ts";

function fakeHttp(status = 200) {
  const asked: string[] = [];
  const http: PeerHttp = {
    async request(url) {
      asked.push(url);
      return { ok: true, status, headers: new Headers(), body: new Uint8Array(), address: "192.0.2.1" } satisfies PeerResponse;
    },
  };
  return { http, asked };
}
const T = 1_000_000;

describe("stranger-fetch budgets", () => {
  test("a URL that failed is not fetched again within the negative TTL, then is", async () => {
    const budget = createFetchBudget(createMemoryRateLimiter());
    const { http, asked } = fakeHttp(404);
    expect(await budget.gate(http, "a", T).request("https://x.example/card")).toMatchObject({ ok: true, status: 404 });
    expect(await budget.gate(http, "b", T + 1000).request("https://x.example/card")).toMatchObject({ ok: false, reason: "throttled" });
    expect(await budget.gate(http, "c", T + DEFAULT_FETCH_BUDGET.negativeTtlMs).request("https://x.example/card")).toMatchObject({ ok: true });
    expect(asked).toHaveLength(2);
  });

  test("failed(url) marks a URL whose answer was unusable (a 200 with a bad card)", async () => {
    const budget = createFetchBudget(createMemoryRateLimiter());
    const { http, asked } = fakeHttp(200);
    await budget.gate(http, "a", T).request("https://x.example/card");
    budget.failed("https://x.example/card", T);
    expect(await budget.gate(http, "a", T + 1).request("https://x.example/card")).toMatchObject({ ok: false, reason: "throttled" });
    expect(asked).toHaveLength(1);
  });

  test("per source, per host and global budgets each refuse before any I/O", async () => {
    const options = { ...DEFAULT_FETCH_BUDGET, global: { limit: 8, windowMs: 60_000 }, perHost: { limit: 3, windowMs: 60_000 }, perSource: { limit: 2, windowMs: 60_000 } };
    const budget = createFetchBudget(createMemoryRateLimiter(), options);
    const { http, asked } = fakeHttp(200);
    const get = (source: string, host: string, n: number) => budget.gate(http, source, T).request(`https://${host}/c${n}`);
    expect((await get("s1", "h1", 1)).ok).toBe(true);
    expect((await get("s1", "h2", 2)).ok).toBe(true);
    expect(await get("s1", "h3", 3)).toMatchObject({ reason: "throttled" }); // per source
    expect((await get("s2", "h1", 4)).ok).toBe(true);
    expect((await get("s3", "h1", 5)).ok).toBe(true);
    expect(await get("s4", "h1", 6)).toMatchObject({ reason: "throttled" }); // per host
    expect((await get("s5", "h4", 7)).ok).toBe(true);
    expect((await get("s6", "h5", 8)).ok).toBe(true);
    expect((await get("s7", "h6", 9)).ok).toBe(true); // the refusals above spent nothing of the global budget
    expect((await get("s8", "h7", 10)).ok).toBe(true);
    expect(await get("s9", "h8", 11)).toMatchObject({ reason: "throttled" }); // global
    expect(asked).toHaveLength(8);
    expect((await budget.gate(http, "s9", T + 60_000).request("https://h8/c11")).ok).toBe(true); // next window
  });

  test("budgets are charged source first: a source over its quota spends nothing of a host's or the global budget", async () => {
    const options = { ...DEFAULT_FETCH_BUDGET, global: { limit: 10, windowMs: 60_000 }, perHost: { limit: 5, windowMs: 60_000 }, perSource: { limit: 2, windowMs: 60_000 } };
    const budget = createFetchBudget(createMemoryRateLimiter(), options);
    const { http } = fakeHttp(200);
    for (let n = 0; n < 20; n++) await budget.gate(http, "greedy", T).request(`https://victim/c${n}`);
    for (let n = 0; n < 3; n++) expect((await budget.gate(http, `s${n}`, T).request(`https://victim/d${n}`)).ok).toBe(true);
  });

  test("a card that passed every check is kept for recentTtlMs; a failure forgets it; rechecks are bounded per URL", () => {
    const budget = createFetchBudget(createMemoryRateLimiter());
    budget.verified("https://x.example/card", "{}", T);
    expect(budget.recentCard("https://x.example/card", T + 59_000)).toBe("{}");
    expect(budget.recentCard("https://x.example/card", T + DEFAULT_FETCH_BUDGET.recentTtlMs)).toBeNull();
    budget.failed("https://x.example/card", T + 1);
    expect(budget.recentCard("https://x.example/card", T + 2)).toBeNull();
    expect(["k1", "k1", "k2", "k3"].map((k) => budget.mayRecheck("https://x.example/card", k, T))).toEqual([true, false, true, false]);
  });

  test("the negative cache keeps at most maxNegative entries (oldest go first)", async () => {
    const budget = createFetchBudget(createMemoryRateLimiter(), { ...DEFAULT_FETCH_BUDGET, maxNegative: 3 });
    const { http, asked } = fakeHttp(200);
    for (let i = 0; i < 5; i++) budget.failed(`https://x.example/${i}`, T);
    expect(await budget.gate(http, "a", T).request("https://x.example/4")).toMatchObject({ reason: "throttled" });
    expect((await budget.gate(http, "a", T).request("https://x.example/0")).ok).toBe(true); // evicted: one more (budgeted) fetch
    expect(asked).toEqual(["https://x.example/0"]);
  });
});
