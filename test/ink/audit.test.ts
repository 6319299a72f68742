// Hash-chained audit events and the signed audit response gate (AUDIT §2–§4).
import { describe, expect, test } from "bun:test";
import { type SenderKeys } from "../../src/ink/index.ts";
import { type AuditEvent, auditEventHash, auditLeafHash, messageHash, signAuditEvent, signAuditResponse, verifyAuditEventChain, verifyAuditEventSignature, verifyAuditResponse } from "../../src/ink/profiles.ts";
import { ALICE, alice, mallory, NOW } from "./helpers.ts";

const keys: SenderKeys = { kind: "key-set", source: "card", keys: [{ keyId: "sig-1", publicKey: alice.publicKey, status: "active" }] };

function chain(n: number): AuditEvent[] {
  const out: AuditEvent[] = [];
  let prev: string | null = null;
  for (let i = 1; i <= n; i++) {
    const e: AuditEvent = { id: `evt-${i}`, version: "ink-audit/1", agentId: ALICE, sequence: i, previousEventHash: prev, eventType: i % 2 ? "message.received" : "future.unknown_type", timestamp: "2026-07-01T00:00:00.000Z", messageId: "m-1", signingKeyId: "sig-1" };
    const s = signAuditEvent(e, alice.secretKey);
    if (!s.ok) throw new Error("sign");
    out.push(s.event);
    prev = auditEventHash(s.event);
  }
  return out;
}

describe("audit events", () => {
  test("the worked example of AUDIT.md §2", () => {
    const e = { id: "01JAUDIT0000000000000000A1", version: "ink-audit/1", agentId: "tulpa:z6MkgosDnsjFCTf73Ms7S4Nzwe78GD7Bzn94hTU462M4GirX", sequence: 1, previousEventHash: null, eventType: "message.received", timestamp: "2026-01-01T00:00:00.000Z", messageId: "msg-1", counterpartyId: "did:web:sender.example", agentSignature: "x" };
    expect(auditEventHash(e)).toBe("301d088919206dc48bd049ca71727ea3ef4d83f3fdfc4d141d62703beee7e295");
    expect(auditLeafHash(e)).toBe("0bb55e4baf98143d5809493b10f9857db4f5289f7c977a3c6f174e23dc7f6f2d");
  });
  test("chain: valid, fork, gap, broken link, junk; unknown event types are hashed like any other", () => {
    const c = chain(4);
    expect(verifyAuditEventChain(c)).toEqual({ ok: true, lastHash: auditEventHash(c[3]) });
    expect(verifyAuditEventChain(c.slice(1))).toMatchObject({ ok: true }); // a slice may start anywhere
    expect(verifyAuditEventChain([])).toEqual({ ok: true, lastHash: null });
    expect(verifyAuditEventChain([c[0], c[1], { ...c[1], eventType: "message.rejected" }])).toEqual({ ok: false, reason: "sequence_fork", index: 2 });
    expect(verifyAuditEventChain([c[0], c[2]])).toEqual({ ok: false, reason: "sequence_gap", index: 1 });
    expect(verifyAuditEventChain([c[0], { ...c[1], previousEventHash: "0".repeat(64) }])).toEqual({ ok: false, reason: "previous_hash_mismatch", index: 1 });
    expect(verifyAuditEventChain([c[0], { ...c[1], messageId: "other" }, c[2]])).toEqual({ ok: false, reason: "previous_hash_mismatch", index: 2 });
    expect(verifyAuditEventChain("x")).toEqual({ ok: false, reason: "invalid_input", index: -1 });
    expect(verifyAuditEventChain([{ sequence: 0, previousEventHash: null }])).toEqual({ ok: false, reason: "invalid_event", index: 0 });
    expect(verifyAuditEventChain([{ sequence: 1, previousEventHash: null, n: 1.5 }])).toEqual({ ok: false, reason: "invalid_event", index: 0 });
  });
  test("event signatures are rotation-aware on the event's own timestamp", () => {
    const [e] = chain(1) as [AuditEvent];
    expect(verifyAuditEventSignature(e, keys).ok).toBe(true);
    const windowed: SenderKeys = { kind: "key-set", source: "card", keys: [{ keyId: "sig-1", publicKey: alice.publicKey, status: "retired", validUntil: "2026-06-30T00:00:00.000Z" }] };
    expect(verifyAuditEventSignature(e, windowed).ok).toBe(false);
    expect(verifyAuditEventSignature({ ...e, timestamp: "soon" }, keys).ok).toBe(false);
    expect(verifyAuditEventSignature({ ...e, eventType: "key.revoked" }, keys).ok).toBe(false);
  });
  test("messageHash covers the whole body including its signature", () => {
    expect(messageHash({ a: 1, signature: "x" })).not.toBe(messageHash({ a: 1 }));
    expect(messageHash({ b: 1, a: 2 })).toBe(messageHash({ a: 2, b: 1 }));
    expect(messageHash({ n: 0.5 })).toBeNull();
  });
});

describe("signed audit response gate", () => {
  const base = { responderKeys: keys, atMs: NOW, eventKeys: () => keys, wordmark: "svc" as const };
  const signed = () => {
    const r = signAuditResponse("m-1", chain(3), alice.secretKey, "svc");
    if (!r.ok) throw new Error("sign");
    return r.response;
  };
  test("accepts a signed, chained, event-signed slice", () => {
    const response = signed();
    expect(response.type).toBe("network.svc.audit_response");
    expect(verifyAuditResponse({ ...base, response }).ok).toBe(true);
  });
  test("rejects each failure: type spelling, response signature, chain, event signature", () => {
    const response = signed();
    expect(verifyAuditResponse({ ...base, response: { ...response, type: "network.ink.audit_response" } })).toMatchObject({ reason: "malformed_response" });
    expect(verifyAuditResponse({ ...base, response: { ...response, messageId: undefined } })).toMatchObject({ reason: "malformed_response" });
    expect(verifyAuditResponse({ ...base, responderKeys: { kind: "bootstrap", publicKey: mallory.publicKey }, response })).toMatchObject({ reason: "invalid_response_signature" });
    const gap = signAuditResponse("m-1", [chain(3)[0] as AuditEvent, chain(3)[2] as AuditEvent], alice.secretKey, "svc");
    if (!gap.ok) throw new Error("sign");
    expect(verifyAuditResponse({ ...base, response: gap.response })).toMatchObject({ reason: "sequence_gap" });
    const forged = chain(2);
    forged[1] = { ...(forged[1] as AuditEvent), agentSignature: (forged[0] as AuditEvent).agentSignature };
    const f = signAuditResponse("m-1", forged, alice.secretKey, "svc");
    if (!f.ok) throw new Error("sign");
    expect(verifyAuditResponse({ ...base, response: f.response })).toMatchObject({ reason: "invalid_event_signature", index: 1 });
    expect(verifyAuditResponse({ ...base, response: null }).ok).toBe(false);
  });
});
