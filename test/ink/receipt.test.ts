import { expect, test } from "bun:test";
import { ed25519PublicKey } from "../../src/ink/index.ts";
import { buildReceipt, verifyReceipt, wantsReceipt } from "../../src/ink/profiles.ts";
import { loadTestVectors } from "./conformance/fixtures.ts";

const hex = (h: string) => new Uint8Array(Buffer.from(h, "hex"));
const vectors = loadTestVectors("receipts-and-audit").vectors as any[];
const keys = loadTestVectors("keys");
const receiptVector = vectors[0];
const bobKey = hex(receiptVector.input.signerPrivateKeyHex);
const bob = { kind: "key-set" as const, source: "card" as const, keys: [{ keyId: "bob-sig", publicKey: hex(keys.bob.signing.publicKeyHex), status: "active" as const }] };
const sent = receiptVector.input.originalMessageBody;
const check = { from: "did:plc:bob456test", to: "did:plc:alice123test", messageId: "msg-test-vector-001", sentMessage: sent, keys: bob, wordmark: "tulpa" as const };

test("the upstream receipt vector (transport-signed, no body signature) verifies against the message it names", () => {
  expect(ed25519PublicKey(bobKey)).toEqual(hex(keys.bob.signing.publicKeyHex));
  expect(verifyReceipt(receiptVector.input.receipt, check)).toMatchObject({ ok: true, receipt: { disposition: "delivered" } });
});

test("a built receipt carries the message hash and a body signature that verifies; each mismatch has its reason", () => {
  const r = buildReceipt({ from: check.from, to: check.to, messageId: check.messageId, disposition: "delivered", dispositionAt: "2026-03-18T12:05:00Z", message: sent, nonce: "cmVjZWlwdG5vbmNlMTIzNA", timestamp: "2026-03-18T12:05:01Z" }, bobKey, "tulpa")!;
  expect(r.messageHash).toBe(receiptVector.input.messageHashHex);
  expect(r.type).toBe("network.tulpa.receipt");
  expect(verifyReceipt(r, check).ok).toBe(true);
  expect(verifyReceipt({ ...r, disposition: "acted" }, check)).toEqual({ ok: false, reason: "invalid_signature" });
  expect(verifyReceipt(r, { ...check, from: "did:plc:mallory" })).toEqual({ ok: false, reason: "from_mismatch" });
  expect(verifyReceipt(r, { ...check, to: "did:plc:mallory" })).toEqual({ ok: false, reason: "to_mismatch" });
  expect(verifyReceipt(r, { ...check, messageId: "other" })).toEqual({ ok: false, reason: "message_id_mismatch" });
  expect(verifyReceipt(r, { ...check, disposition: "rejected" })).toEqual({ ok: false, reason: "disposition_mismatch" });
  expect(verifyReceipt(r, { ...check, sentMessage: { ...sent, purpose: "changed" } })).toEqual({ ok: false, reason: "message_hash_mismatch" });
  for (const bad of [null, [], { ...r, disposition: "lost" }, { ...r, protocol: "ink/0.2" }, { ...r, type: "network.tulpa.intent" }, { ...r, timestamp: "yesterday" }, { ...r, note: "x".repeat(501) }]) {
    expect(verifyReceipt(bad, check)).toEqual({ ok: false, reason: "malformed_receipt" });
  }
  const other = { kind: "key-set" as const, source: "card" as const, keys: [{ keyId: "k", publicKey: hex(keys.alice.signing.publicKeyHex), status: "active" as const }] };
  expect(verifyReceipt(r, { ...check, keys: other })).toEqual({ ok: false, reason: "invalid_signature" });
});

test("no receipt for a receipt or an audit message, in either spelling; intents get one", () => {
  expect(wantsReceipt(sent)).toBe(true);
  expect(wantsReceipt({ intent: "ping" })).toBe(true);
  for (const t of ["network.tulpa.receipt", "network.ink.audit_query", "network.svc.audit_response", "network.ink.audit_submit", "network.tulpa.audit_inclusion"]) expect(wantsReceipt({ type: t })).toBe(false);
});
