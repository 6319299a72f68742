// A relay's check (src/ink/relay.ts): the receiver's phase 1, then the transport signature only —
// it cannot decrypt, and the body signature is the recipient's to check.
import { expect, test } from "bun:test";
import { nobleEnvelopeCrypto } from "../../src/ink/encryption-noble.ts";
import { buildSignedEnvelope, inspectInbound, resolveSenderKeys, sealEnvelope, verifyRelayTransport, type SenderKeys } from "../../src/ink/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import { ALICE, alice, bobEncryptionPublic, draft, mallory, NOW, policy, type Raw, signedRequest, TS, WORDMARK } from "./helpers.ts";

const aliceKeys: SenderKeys = resolveSenderKeys({ agentId: ALICE });
const relayPolicy = { ...policy, acceptsSealed: true };

function relay(raw: Pick<Raw, "bodyText" | "authorization">, keys = aliceKeys) {
  const pending = inspectInbound({ body: new TextEncoder().encode(raw.bodyText), authorization: raw.authorization, now: NOW }, relayPolicy);
  if (!pending.ok) return pending.reason;
  const verified = verifyRelayTransport(pending, { keys, verifier: nativeStrictVerifier });
  return verified.ok ? `accepted:${verified.keyId}` : verified.reason;
}

function sealed(): Raw {
  const env = buildSignedEnvelope(draft({ intent: "schedule_meeting", payload: { proposedTimes: [TS], topic: "sync", format: "video", urgency: "low" } }), alice.secretKey, WORDMARK);
  if (!env.ok) throw new Error(env.reason);
  const s = sealEnvelope({ crypto: nobleEnvelopeCrypto, inner: env.envelope, senderDid: ALICE, recipientPublicKey: bobEncryptionPublic, timestamp: TS, messageNonce: `sealed-${env.envelope.nonce}`, wordmark: WORDMARK });
  if (!s.ok) throw new Error(s.reason);
  return signedRequest(s.envelope, { skipBodySignature: true });
}

test("a plaintext intent and a sealed one pass on their transport signature, without any decryption key", () => {
  expect(relay(signedRequest(draft()))).toBe("accepted:bootstrap");
  expect(relay(sealed())).toBe("accepted:bootstrap");
});

test("a transport signature by another key, or over other bytes, is refused; so is a retired key for live auth", () => {
  expect(relay(signedRequest(draft(), { transportKey: mallory.secretKey }))).toBe("invalid_signature");
  expect(relay(signedRequest(draft(), { path: "/elsewhere" }))).toBe("invalid_signature"); // path binding
  const raw = signedRequest(draft());
  expect(relay({ ...raw, bodyText: JSON.stringify({ ...JSON.parse(raw.bodyText), id: "another-id" }) })).toBe("invalid_signature");
  const retired: SenderKeys = { kind: "key-set", source: "card", keys: [{ keyId: "sig-1", publicKey: alice.publicKey, status: "retired" }] };
  expect(relay(raw, retired)).toBe("retired_key_for_live_auth");
  expect(relay(raw, { kind: "key-set", source: "card", keys: [] })).toBe("signature_verification_failed");
});

test("the body signature is not the relay's check: a body signed by another key still passes on its transport signature (the recipient refuses it)", () => {
  expect(relay(signedRequest(draft(), { bodyKey: mallory.secretKey }))).toBe("accepted:bootstrap");
});
