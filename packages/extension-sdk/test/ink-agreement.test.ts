// The SDK re-implements JCS, multibase keys and the audit chain rules without dependencies; here
// they are checked against the node's own INK code (src/ink) and protocol/AUDIT.md's worked example.
import { describe, expect, test } from "bun:test";
import { auditEventHash as inkAuditEventHash, signAuditEvent } from "../../../src/ink/audit.ts";
import { generateEd25519KeyPair } from "../../../src/ink/ed25519.ts";
import { canonicalize } from "../../../src/ink/jcs.ts";
import { decodeEd25519PublicKey, encodeEd25519PublicKey } from "../../../src/ink/multibase.ts";
import { auditEventHash, canonicalJson, decodeEd25519Multibase, encodeEd25519Multibase, verifyAuditChain } from "../src/index.ts";

const AUDIT_MD_EXAMPLE = {
  id: "01JAUDIT0000000000000000A1",
  version: "ink-audit/1",
  agentId: "tulpa:z6MkgosDnsjFCTf73Ms7S4Nzwe78GD7Bzn94hTU462M4GirX",
  sequence: 1,
  previousEventHash: null,
  eventType: "message.received",
  timestamp: "2026-01-01T00:00:00.000Z",
  messageId: "msg-1",
  counterpartyId: "did:web:sender.example",
  agentSignature: "ignored",
};

describe("the SDK agrees with src/ink", () => {
  test("AUDIT.md's worked example: chain hash 301d0889…", async () => {
    expect(await auditEventHash(AUDIT_MD_EXAMPLE)).toBe("301d088919206dc48bd049ca71727ea3ef4d83f3fdfc4d141d62703beee7e295");
  });

  test("canonicalJson equals the node's JCS wherever INK's profile accepts the value", () => {
    // INK's profile (safe integers only, member names without escapes) is narrower than RFC 8785;
    // everything the node signs is inside it, so agreement there is what the SDK needs.
    const values: unknown[] = [
      { b: 1, a: [true, null, "x"], "é": { z: 0, y: -9007199254740991, x: 9007199254740991 } },
      { "\u20ac": 1, "\ud83d\ude00": 4, a: "\u2028\u0007\"\\\u00e9\u{1F600}", B: [], c: {} },
      [1, -2, 123456789012, [[]], { "": "" }],
      "plain",
    ];
    for (const v of values) {
      const ink = canonicalize(v);
      expect(ink.ok).toBe(true);
      expect(canonicalJson(v)).toBe(ink.ok ? ink.text : "");
    }
    expect(canonicalJson({ z: 0.1, a: 1e-7 })).toBe('{"a":1e-7,"z":0.1}');
    expect(() => canonicalJson({ big: 2 ** 60 })).toThrow();
    expect(() => canonicalJson("\ud800")).toThrow();
  });

  test("multibase keys round-trip both ways", () => {
    for (let i = 0; i < 20; i++) {
      const { publicKey } = generateEd25519KeyPair();
      const mb = encodeEd25519Multibase(publicKey);
      expect(mb).toBe(encodeEd25519PublicKey(publicKey));
      expect(decodeEd25519Multibase(mb)).toEqual(publicKey);
      expect(decodeEd25519PublicKey(mb)).toEqual(publicKey);
    }
    expect(decodeEd25519Multibase("z6Mk")).toBeNull();
    expect(decodeEd25519Multibase("f00")).toBeNull();
  });

  test("a chain signed by src/ink verifies with the SDK; the same hashes either way", async () => {
    const { publicKey, secretKey } = generateEd25519KeyPair();
    const chain: Record<string, unknown>[] = [];
    for (let seq = 1; seq <= 5; seq++) {
      const prev = chain.at(-1);
      const signed = signAuditEvent(
        { id: `e${seq}`, version: "ink-audit/1", agentId: "svc:x", sequence: seq, previousEventHash: prev ? inkAuditEventHash(prev) : null, eventType: "delegation.used", timestamp: "2026-11-24T21:00:00.000Z", data: { transport: "extension_api", n: seq } },
        secretKey,
      );
      if (!signed.ok) throw new Error("sign");
      chain.push(signed.event);
    }
    for (const e of chain) expect(await auditEventHash(e)).toBe(inkAuditEventHash(e) as string);
    expect(await verifyAuditChain(chain, { publicKeys: [encodeEd25519PublicKey(publicKey)] })).toEqual({ ok: true, count: 5, lastHash: inkAuditEventHash(chain[4]) });
  });
});
