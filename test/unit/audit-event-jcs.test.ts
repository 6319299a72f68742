import { describe, expect, test } from "bun:test";
import { auditEventJcs } from "../../src/domain/internal/audit-event-jcs.ts";
import { auditEventCanonical, type AuditEvent } from "../../src/ink/profiles.ts";

// The fixed-shape writer of appendAuditEvent's events must be the generic JCS byte for byte
// (AUDIT §2: the chain hash and the agent's signature are over it), including where JCS refuses.

/** A small deterministic PRNG, so a failure names a reproducible case. */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
}

const PIECES = ["a", "Z", "0", "-", "_", ".", "/", "?", "=", "&", " ", '"', "\\", "\n", "\u0000", "\u001f", "\u007f", "é", "€", "𝄞", "\ud800", "\udc00", "ext:", "ink:key:z6Mk", "GET", "/ext/v1/identity?since=3"];

function randomString(r: () => number, max = 12): string {
  let s = "";
  const n = Math.floor(r() * max);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

function randomValue(r: () => number): unknown {
  const k = r();
  if (k < 0.5) return randomString(r);
  if (k < 0.6) return r() < 0.5;
  if (k < 0.65) return null;
  if (k < 0.75) return Math.floor((r() - 0.5) * 2 ** 40);
  if (k < 0.78) return [randomString(r)];
  if (k < 0.81) return { nested: randomString(r) };
  if (k < 0.83) return 1.5;
  if (k < 0.85) return -0;
  if (k < 0.87) return undefined;
  return Number.MAX_SAFE_INTEGER + (r() < 0.5 ? 0 : 2);
}

function randomEvent(r: () => number): AuditEvent {
  const event: Record<string, unknown> = {
    id: r() < 0.95 ? `01J${randomString(r, 8)}` : 7,
    version: "ink-audit/1",
    agentId: r() < 0.9 ? "tulpa:z6MkgosDnsjFCTf73Ms7S4Nzwe78GD7Bzn94hTU462M4GirX" : randomString(r),
    sequence: r() < 0.95 ? 1 + Math.floor(r() * 1e6) : r() < 0.5 ? -0 : 2.5,
    previousEventHash: r() < 0.2 ? null : "ab".repeat(32),
    eventType: r() < 0.8 ? "delegation.used" : randomString(r),
    timestamp: "2026-01-01T00:00:00.000Z",
  };
  if (r() < 0.9) event.signingKeyId = r() < 0.8 ? "key-1" : randomString(r);
  for (const name of ["messageId", "correlationId", "counterpartyId"]) if (r() < 0.4) event[name] = r() < 0.9 ? randomString(r) : randomValue(r);
  if (r() < 0.8) {
    const data: Record<string, unknown> = {};
    const n = Math.floor(r() * 6);
    for (let i = 0; i < n; i++) data[r() < 0.9 ? randomString(r, 3) || "k" : '"odd'] = randomValue(r);
    event.data = r() < 0.97 ? data : [data];
  }
  if (r() < 0.1) event.agentSignature = "A".repeat(86);
  if (r() < 0.03) event.extra = "unknown member";
  return event as AuditEvent;
}

describe("auditEventJcs", () => {
  test("equals the generic JCS (or its refusal) on 10,000 generated events", () => {
    const r = rng(14);
    let fast = 0;
    for (let i = 0; i < 10_000; i++) {
      const event = randomEvent(r);
      const expected = auditEventCanonical(event);
      expect({ i, text: auditEventJcs(event) }).toEqual({ i, text: expected });
      if (expected !== null) fast++;
    }
    expect(fast).toBeGreaterThan(1_500); // many are canonicalizable, so the fast path is exercised
  });

  test("long or large values go to the generic writer and still match", () => {
    const big = { id: "x", version: "ink-audit/1", agentId: "a", sequence: 2, previousEventHash: null, eventType: "delegation.used", timestamp: "t", data: { path: "p".repeat(70_000) } } as AuditEvent;
    expect(auditEventJcs(big)).toBe(auditEventCanonical(big));
    const many = { ...big, data: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i])) } as AuditEvent;
    expect(auditEventJcs(many)).toBe(auditEventCanonical(many));
  });
});
