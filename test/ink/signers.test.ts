// The signing backend is a parameter of the INK core's signers, as the verifier is: the app passes
// the native one (BoringSSL) instead of noble's pure JS. Ed25519 is deterministic (RFC 8032
// §5.1.6), so everything signed must come out the same under both (byte equality of the two
// backends themselves: test/security/ed25519-native-sign.test.ts).
import { describe, expect, test } from "bun:test";
import {
  buildSignedEnvelope,
  type EnvelopeDraft,
  prepareOutbound,
  signAgentCard,
  signBody,
  signTransport,
} from "../../src/ink/index.ts";
import { buildReceipt, signAuditResponse } from "../../src/ink/profiles.ts";
import { nativeEd25519Sign } from "../../src/security/ed25519-native.ts";
import { ALICE, alice, BOB, TS } from "./helpers.ts";

describe("the INK core's signers take the backend", () => {
  const draft: EnvelopeDraft = {
    protocol: "ink/0.1",
    id: "msg-1",
    correlationId: "thread-1",
    createdAt: TS,
    from: ALICE,
    to: BOB,
    intent: "ask",
    payload: { question: "Héllo — ünïcode and emoji 🙂, quotes \" and \\ backslashes" },
    timestamp: TS,
    nonce: "nonce-0123456789abcdef",
    signingKeyId: "sig-1",
  };

  test("signBody, buildSignedEnvelope, prepareOutbound and signTransport: same output under both", () => {
    expect(signBody(draft, alice.secretKey, "svc", nativeEd25519Sign)).toEqual(signBody(draft, alice.secretKey, "svc"));
    for (const protocol of ["ink/0.1", "ink/0.2"] as const) {
      const noble = buildSignedEnvelope({ ...draft, protocol }, alice.secretKey, "svc");
      const native = buildSignedEnvelope({ ...draft, protocol }, alice.secretKey, "svc", nativeEd25519Sign);
      expect(native).toEqual(noble);
      if (!noble.ok) throw new Error(noble.reason);
      const recipient = { agentId: BOB, endpoint: "https://bob.example/ink/v1/inbound" };
      const a = prepareOutbound({ envelope: noble.envelope, recipient, secretKey: alice.secretKey, keyId: "sig-1", wordmark: "svc" });
      const b = prepareOutbound({ envelope: noble.envelope, recipient, secretKey: alice.secretKey, keyId: "sig-1", wordmark: "svc", sign: nativeEd25519Sign });
      expect(b).toEqual(a);
      const input = { method: "POST", path: "/ink/v1/inbound", recipientDid: BOB, body: noble.envelope, timestamp: TS };
      expect(signTransport(input, alice.secretKey, "sig-1", nativeEd25519Sign)).toEqual(signTransport(input, alice.secretKey, "sig-1"));
      const receipt = { from: BOB, to: ALICE, messageId: "msg-1", disposition: "delivered" as const, dispositionAt: TS, message: noble.envelope, nonce: "0123456789abcdef", timestamp: TS };
      expect(buildReceipt(receipt, alice.secretKey, "svc", nativeEd25519Sign)).toEqual(buildReceipt(receipt, alice.secretKey, "svc"));
    }
    const card = { agentId: ALICE, name: "Alice", keySetVersion: 1, updatedAt: TS };
    expect(signAgentCard(card, alice.secretKey, "sig-1", nativeEd25519Sign)).toEqual(signAgentCard(card, alice.secretKey, "sig-1"));
    expect(signAuditResponse("msg-1", [], alice.secretKey, "svc", nativeEd25519Sign)).toEqual(signAuditResponse("msg-1", [], alice.secretKey, "svc"));
  });

  test("the backend passed is the one that signs", () => {
    const calls: number[] = [];
    const counting = (message: Uint8Array, secretKey: Uint8Array) => {
      calls.push(message.length);
      return nativeEd25519Sign(message, secretKey);
    };
    const built = buildSignedEnvelope(draft, alice.secretKey, "svc", counting);
    if (!built.ok) throw new Error(built.reason);
    prepareOutbound({ envelope: built.envelope, recipient: { agentId: BOB, endpoint: "https://bob.example/ink/v1/inbound" }, secretKey: alice.secretKey, wordmark: "svc", sign: counting });
    signTransport({ method: "POST", path: "/x", recipientDid: BOB, body: { a: 1 }, timestamp: TS }, alice.secretKey, null, counting);
    buildReceipt({ from: BOB, to: ALICE, messageId: "msg-1", disposition: "delivered", dispositionAt: TS, message: built.envelope, nonce: "0123456789abcdef", timestamp: TS }, alice.secretKey, "svc", counting);
    signAgentCard({ agentId: ALICE }, alice.secretKey, "sig-1", counting);
    signAuditResponse("msg-1", [], alice.secretKey, "svc", counting);
    expect(calls.length).toBe(6);
  });
});
