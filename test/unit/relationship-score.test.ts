import { describe, expect, test } from "bun:test";
import { scoreRelationship, windowOf, type InteractionStats } from "../../src/domain/relationships/internal/score.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-06-01T00:00:00Z");
const stats = (over: Partial<InteractionStats>): InteractionStats => ({
  inbound: [0, 0, 0, 0, 0],
  outbound: [0, 0, 0, 0, 0],
  meetings: 0,
  introductions: 0,
  lastInteractionAt: null,
  status: "connected",
  since: NOW - 400 * DAY,
  ...over,
});

describe("relationship layer and health (pure)", () => {
  test("weekly two-way contact is inner and strong", () => {
    const r = scoreRelationship(stats({ inbound: [2, 6, 17, 25, 50], outbound: [2, 7, 17, 26, 52], lastInteractionAt: NOW - 2 * DAY }), NOW);
    expect(r.layer).toBe("inner");
    expect(r.health).toBe("strong");
    expect(r.factors.reciprocity).toBeGreaterThan(0.9);
  });

  test("monthly contact is active; a quarterly one sympathy; a few a year recognition", () => {
    expect(scoreRelationship(stats({ inbound: [0, 2, 3, 4, 9], outbound: [0, 2, 3, 5, 9], lastInteractionAt: NOW - 10 * DAY }), NOW).layer).toBe("active");
    expect(scoreRelationship(stats({ inbound: [0, 1, 1, 2, 2], outbound: [0, 1, 1, 1, 2], lastInteractionAt: NOW - 20 * DAY }), NOW).layer).toBe("sympathy");
    expect(scoreRelationship(stats({ inbound: [0, 0, 0, 1, 2], outbound: [0, 0, 0, 1, 1], lastInteractionAt: NOW - 100 * DAY }), NOW).layer).toBe("recognition");
  });

  test("defaults: a connection without traffic is recognition, a contact known, a blocked agent known", () => {
    expect(scoreRelationship(stats({}), NOW).layer).toBe("recognition");
    expect(scoreRelationship(stats({ status: "contact" }), NOW).layer).toBe("known");
    expect(scoreRelationship(stats({ status: "blocked", inbound: [9, 9, 9, 9, 9], outbound: [9, 9, 9, 9, 9] }), NOW).layer).toBe("known");
  });

  test("one-sided traffic never reaches inner or active; accepted meetings bring people closer", () => {
    expect(scoreRelationship(stats({ inbound: [10, 20, 40, 40, 40], lastInteractionAt: NOW }), NOW).layer).toBe("sympathy");
    expect(scoreRelationship(stats({ inbound: [0, 1, 0, 0, 0], outbound: [0, 1, 0, 0, 0], lastInteractionAt: NOW - 9 * DAY }), NOW).layer).toBe("recognition");
    expect(scoreRelationship(stats({ inbound: [0, 1, 0, 0, 0], outbound: [0, 1, 0, 0, 0], meetings: 2, lastInteractionAt: NOW - 9 * DAY }), NOW).layer).toBe("active");
  });

  test("health decays with time against the layer's cadence, down to dormant", () => {
    const history = { inbound: [0, 0, 0, 1, 2], outbound: [0, 0, 0, 1, 1] };
    const bands = [10, 200, 400, 600, 800].map((days) => scoreRelationship(stats({ ...history, lastInteractionAt: NOW - days * DAY }), NOW - 0).health);
    expect(bands[0]).not.toBe("dormant");
    expect(bands.at(-1)).toBe("dormant");
    const scores = [10, 200, 400, 600].map((days) => scoreRelationship(stats({ ...history, lastInteractionAt: NOW - days * DAY }), NOW).score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  test("an override sets the cadence: the same silence is worse for an inner contact", () => {
    const s = stats({ inbound: [0, 1, 1, 1, 1], outbound: [0, 1, 1, 1, 1], lastInteractionAt: NOW - 25 * DAY });
    const asComputed = scoreRelationship(s, NOW);
    const asInner = scoreRelationship(s, NOW, "inner");
    expect(asInner.layer).toBe(asComputed.layer); // the computed layer is unchanged
    expect(asInner.factors.cadenceDays).toBe(7);
    expect(asInner.score).toBeLessThan(asComputed.score);
  });

  test("trend, reciprocity and bridge move the score", () => {
    const base = { lastInteractionAt: NOW - DAY };
    const rising = scoreRelationship(stats({ ...base, inbound: [2, 2, 0, 0, 0], outbound: [2, 2, 0, 0, 0] }), NOW);
    const falling = scoreRelationship(stats({ ...base, inbound: [0, 1, 6, 0, 0], outbound: [0, 0, 6, 0, 0] }), NOW);
    expect(rising.factors.trend).toBe(1);
    expect(falling.factors.trend).toBeLessThan(0.5);
    const bridge = scoreRelationship(stats({ ...base, inbound: [2, 2, 0, 0, 0], outbound: [2, 2, 0, 0, 0], introductions: 3 }), NOW);
    expect(bridge.factors.bridge).toBe(1);
    expect(bridge.score).toBeGreaterThan(rising.score);
    const lopsided = scoreRelationship(stats({ ...base, inbound: [4, 4, 0, 0, 0] }), NOW);
    expect(lopsided.factors.reciprocity).toBe(0);
  });

  test("windows: ≤7 d, 7–30 d, 30–90 d, 90–180 d, 180–365 d, older", () => {
    expect([0, 6.9, 7, 29, 30, 89, 90, 179, 180, 364, 365].map((d) => windowOf(d * DAY))).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, -1]);
  });
});
