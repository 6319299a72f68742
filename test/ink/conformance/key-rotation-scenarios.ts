// test-vectors/key-rotation.json: scenario descriptions (upstream generates keys at runtime),
// replayed here with fixed-seed keys.
import { expect } from "bun:test";
import { buildAuthorizationHeader, deriveAgentId, type Ed25519Verifier, generateEd25519KeyPair, inspectInbound, parseAuthorizationHeader, parseTimestamp, signTransport, verifyTransportSignature, verifyWithSenderKeys } from "../../../src/ink/index.ts";
import { signAuditEvent, verifyAuditEventSignature } from "../../../src/ink/profiles.ts";
import { loadTestVectors } from "./fixtures.ts";
import type { VectorCheck } from "./test-vector-checks.ts";

/**
 * key-rotation.json holds scenarios, not bytes (keys are generated at runtime upstream); each
 * scenario is replayed here with fixed-seed keys.
 */
export function keyRotationScenarios(): VectorCheck[] {
  const file = loadTestVectors("key-rotation");
  const v1 = generateEd25519KeyPair(new Uint8Array(32).fill(0x11));
  const v2 = generateEd25519KeyPair(new Uint8Array(32).fill(0x22));
  const signInput = (ts: string) => ({
    method: "POST",
    path: "/ink/v1/inbound",
    recipientDid: "did:web:receiver.example",
    body: { protocol: "ink/0.1", from: "did:web:sender.example", nonce: "rotation-scenario-nonce-1", timestamp: ts },
    timestamp: ts,
  });
  const sign = (ts: string, sk: Uint8Array) => {
    const s = signTransport(signInput(ts), sk);
    if (!s.ok) throw new Error("sign");
    return s.signature;
  };
  const entry = (keyId: string, pair: { publicKey: Uint8Array }, status: string, extra: Record<string, string> = {}) => ({
    keyId,
    publicKey: pair.publicKey,
    status,
    ...extra,
  });
  const verify = (keys: any[], ts: string, sig: string, hint: string | null, verifier: Ed25519Verifier, live: boolean) =>
    verifyWithSenderKeys({ kind: "key-set", source: "card", keys }, parseTimestamp(ts) as number, hint, (pk) =>
      verifyTransportSignature(signInput(ts), sig, pk, verifier), { liveAuth: live });
  const T = "2026-03-26T12:00:00.000Z";
  const scenarios: Record<string, (verifier: Ed25519Verifier) => void> = {
    "auth-header-with-keyid": () => {
      const sig = sign(T, v2.secretKey);
      const withId = buildAuthorizationHeader(sig, "sig-2026-03");
      expect(withId.ok && parseAuthorizationHeader(withId.header)).toEqual({ ok: true, signature: sig, keyId: "sig-2026-03" });
      const legacy = buildAuthorizationHeader(sig);
      expect(legacy.ok && parseAuthorizationHeader(legacy.header)).toEqual({ ok: true, signature: sig, keyId: null });
      // The scenario's loose regex (`abc123`) is superseded by the frozen §6.2 grammar.
      expect(parseAuthorizationHeader(file.vectors[0].examples[0].header).ok).toBe(false);
    },
    "rotated-key-verification": (verifier) => {
      const r = verify([entry("sig-v1", v1, "retired"), entry("sig-v2", v2, "active")], T, sign(T, v2.secretKey), "sig-v2", verifier, true);
      expect(r.ok && [r.keyId, r.keyStatus]).toEqual(["sig-v2", "active"]);
    },
    "historical-message-verification": (verifier) => {
      const then = "2026-03-20T12:00:00.000Z";
      const keys = [entry("sig-v1", v1, "retired", { validUntil: "2026-03-25T00:00:00.000Z" }), entry("sig-v2", v2, "active")];
      const r = verify(keys, then, sign(then, v1.secretKey), "sig-v1", verifier, false);
      expect(r.ok && [r.keyId, r.keyStatus]).toEqual(["sig-v1", "retired"]);
      expect(verify(keys, then, sign(then, v1.secretKey), "sig-v1", verifier, true)).toEqual({ ok: false, reason: "retired_key_for_live_auth" });
    },
    "revoked-key-rejection": (verifier) => {
      const keys = [entry("sig-compromised", v1, "revoked"), entry("sig-current", v2, "active")];
      expect(verify(keys, T, sign(T, v1.secretKey), "sig-compromised", verifier, true).ok).toBe(false);
    },
    "refresh-on-miss": (verifier) => {
      const sig = sign(T, v2.secretKey);
      expect(verify([entry("sig-v1", v1, "active")], T, sig, "sig-v2", verifier, true).ok).toBe(false);
      const fresh = verify([entry("sig-v1", v1, "retired"), entry("sig-v2", v2, "active")], T, sig, "sig-v2", verifier, true);
      expect(fresh.ok && fresh.keyId).toBe("sig-v2");
    },
    "keyid-precedence": () => {
      const agent = deriveAgentId(v2.publicKey, "tulpa");
      const body = {
        protocol: "ink/0.1", id: "m1", correlationId: "c1", createdAt: T, from: "did:web:sender.example", to: agent,
        intent: "ping", payload: {}, signature: "A".repeat(86), timestamp: T, nonce: "precedence-nonce-0001", signingKeyId: "sig-body",
      };
      const sig = "B".repeat(86);
      const p = inspectInbound(
        { body: JSON.stringify(body), authorization: `INK-Ed25519 ${sig} keyId=sig-header`, now: parseTimestamp(T) as number },
        { ownAgentId: agent, endpointPath: "/ink/v1/inbound", wordmark: "tulpa", supportedIntents: ["ping"] },
      );
      expect(p.ok && p.keyIdHint).toBe("sig-header");
      const q = inspectInbound(
        { body: JSON.stringify(body), authorization: `INK-Ed25519 ${sig}`, now: parseTimestamp(T) as number },
        { ownAgentId: agent, endpointPath: "/ink/v1/inbound", wordmark: "tulpa", supportedIntents: ["ping"] },
      );
      expect(q.ok && q.keyIdHint).toBe("sig-body");
    },
    "unknown-keyid-fallthrough": (verifier) => {
      const r = verify([entry("sig-actual", v2, "active")], T, sign(T, v2.secretKey), "sig-unknown", verifier, true);
      expect(r.ok && r.keyId).toBe("sig-actual");
    },
    "audit-event-signing-key-tracking": (verifier) => {
      const event = {
        id: "01JROT0001", version: "ink-audit/1" as const, agentId: "did:web:sender.example", sequence: 1, previousEventHash: null,
        eventType: "key.rotated", timestamp: T, signingKeyId: "sig-v2", data: { signingKeyId: "sig-v2" },
      };
      const signed = signAuditEvent(event, v2.secretKey);
      const keys = { kind: "key-set" as const, source: "card" as const, keys: [entry("sig-v1", v1, "retired"), entry("sig-v2", v2, "active")] };
      const r = verifyAuditEventSignature(signed.ok ? signed.event : null, keys, verifier);
      expect(r.ok && r.keyId).toBe("sig-v2");
    },
  };
  return file.vectors.map((v: any) => ({
    file: "key-rotation",
    name: v.id,
    signatures: true,
    run: (verifier: Ed25519Verifier) => {
      const scenario = scenarios[v.id];
      expect(scenario).toBeDefined();
      scenario?.(verifier);
    },
  }));
}
