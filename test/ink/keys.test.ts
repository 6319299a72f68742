// Key resolution under the authority rule (INK §10, docs/key-rotation-rule.md) and the card
// helpers that feed it.
import { describe, expect, test } from "bun:test";
import {
  type AgentCard,
  checkCardFetchResponse,
  encodeEd25519PublicKey,
  encodeX25519PublicKey,
  isKeyUsableAt,
  recipientEncryptionKey,
  resolveSenderKeys,
  senderKeysFromCard,
  validateAgentCard,
  verifyWithSenderKeys,
} from "../../src/ink/index.ts";
import { ALICE, alice, bobEncryptionPublic, mallory, NOW, TS } from "./helpers.ts";

const cardBase = {
  protocol: "ink/0.1",
  agentId: ALICE,
  handle: "alice",
  displayName: "Alice",
  endpoint: "https://alice.example/ink/v1/inbound",
  publicKeyMultibase: encodeEd25519PublicKey(alice.publicKey),
  capabilities: { intentsAccepted: ["ping"], intentsSent: ["ping"] },
  availability: { timezone: "UTC" },
};
const key = (keyId: string, pk: Uint8Array, status: string, extra: Record<string, string> = {}) => ({
  keyId,
  algorithm: "Ed25519",
  publicKeyMultibase: encodeEd25519PublicKey(pk),
  status,
  validFrom: "2026-01-01T00:00:00.000Z",
  ...extra,
});
function card(extra: Record<string, unknown>): AgentCard {
  const r = validateAgentCard({ ...cardBase, ...extra });
  if (!r.ok) throw new Error(r.issue);
  return r.card;
}
const verifiesWith = (pk: Uint8Array) => (candidate: Uint8Array) => Buffer.from(candidate).equals(Buffer.from(pk));

describe("authority rule", () => {
  test("a card signing set is the only source once present", () => {
    const c = card({ keys: { signing: [key("sig-2", mallory.publicKey, "active")] } });
    const keys = resolveSenderKeys({ card: c, agentId: ALICE, storedKey: alice.publicKey });
    // The genesis key (alice) is not consulted even though the agentId embeds it.
    expect(verifyWithSenderKeys(keys, NOW, null, verifiesWith(alice.publicKey), { liveAuth: true })).toEqual({ ok: false, reason: "signature_verification_failed" });
    expect(verifyWithSenderKeys(keys, NOW, null, verifiesWith(mallory.publicKey)).ok).toBe(true);
  });
  test("an empty signing set is authoritative", () => {
    const keys = resolveSenderKeys({ card: card({ keys: { signing: [] } }), agentId: ALICE });
    expect(keys).toEqual({ kind: "key-set", source: "card", keys: [] });
  });
  test("once a signing set was observed, a later card without one gives no fallback", () => {
    expect(resolveSenderKeys({ card: card({}), signingSetObserved: true, agentId: ALICE })).toEqual({ kind: "key-set", source: "card", keys: [] });
    expect(resolveSenderKeys({ signingSetObserved: true, agentId: ALICE, storedKey: alice.publicKey })).toEqual({ kind: "key-set", source: "card", keys: [] });
  });
  test("legacy card → its single key as keyId `legacy`; then stored key; then genesis bootstrap", () => {
    const legacy = resolveSenderKeys({ card: card({}), agentId: ALICE });
    expect(legacy.kind === "key-set" && legacy.source === "legacy-card" && legacy.keys[0]?.keyId).toBe("legacy");
    expect(resolveSenderKeys({ agentId: "did:web:x.example", storedKey: mallory.publicKey })).toEqual({ kind: "bootstrap", publicKey: mallory.publicKey });
    expect(resolveSenderKeys({ agentId: ALICE })).toEqual({ kind: "bootstrap", publicKey: alice.publicKey });
    expect(resolveSenderKeys({ agentId: "did:web:x.example" })).toEqual({ kind: "none" });
  });
  test("failure codes differ by path: bootstrap → invalid_signature, key set → signature_verification_failed", () => {
    const no = () => false;
    expect(verifyWithSenderKeys({ kind: "bootstrap", publicKey: alice.publicKey }, NOW, null, no)).toEqual({ ok: false, reason: "invalid_signature" });
    expect(verifyWithSenderKeys(resolveSenderKeys({ card: card({}), agentId: ALICE }), NOW, null, no)).toEqual({ ok: false, reason: "signature_verification_failed" });
    expect(verifyWithSenderKeys({ kind: "none" }, NOW, null, no)).toEqual({ ok: false, reason: "unresolvable_sender_key" });
  });
  test("signing entries that are not Ed25519 multibase keys reject the card (0.19 role rule), and are never used", () => {
    const odd = { keys: { signing: [{ ...key("odd", alice.publicKey, "active"), publicKeyMultibase: encodeX25519PublicKey(alice.publicKey) }] } };
    expect(validateAgentCard({ ...cardBase, ...odd })).toMatchObject({ ok: false, issue: "keys.signing: Ed25519 key bytes only" });
    // Defence in depth for a card that skipped validation: the entry is dropped, not trusted.
    const keys = senderKeysFromCard({ ...cardBase, ...odd } as unknown as AgentCard);
    expect(keys.kind === "key-set" && keys.keys.length).toBe(0);
  });
  test("only the first 20 entries are considered ([C15])", () => {
    const filler = Array.from({ length: 20 }, (_, i) => key(`k${i}`, mallory.publicKey, "active"));
    const keys = senderKeysFromCard(card({ keys: { signing: [...filler, key("late", alice.publicKey, "active")] } }));
    expect(verifyWithSenderKeys(keys, NOW, "late", verifiesWith(alice.publicKey)).ok).toBe(false);
  });
  test("windows: inclusive bounds, presence is semantic, undefined counts as absent", () => {
    const e = { keyId: "k", publicKey: alice.publicKey, status: "active" };
    expect(isKeyUsableAt({ ...e, validFrom: TS, validUntil: TS }, NOW)).toBe(true);
    expect(isKeyUsableAt({ ...e, validFrom: TS }, NOW - 1)).toBe(false);
    expect(isKeyUsableAt({ ...e, validUntil: TS }, NOW + 1)).toBe(false);
    for (const bad of [null, "", 0, {}, false, "soon"]) {
      expect(isKeyUsableAt({ ...e, validFrom: bad }, NOW)).toBe(false);
      expect(isKeyUsableAt({ ...e, revokedAt: bad }, NOW)).toBe(false);
    }
    expect(isKeyUsableAt({ ...e, validFrom: undefined, revokedAt: undefined }, NOW)).toBe(true);
    expect(isKeyUsableAt({ ...e, status: "rotating" }, NOW)).toBe(false);
  });
});

describe("card helpers", () => {
  test("recipientEncryptionKey prefers currentEncryptionKeyId and needs an X25519 multicodec", () => {
    const enc = (keyId: string, multibase: string, status = "active") => ({ keyId, algorithm: "X25519", publicKeyMultibase: multibase, status, validFrom: "2026-01-01T00:00:00.000Z" });
    const c = card({
      keys: { encryption: [enc("enc-1", encodeX25519PublicKey(mallory.publicKey)), enc("enc-2", encodeX25519PublicKey(bobEncryptionPublic))] },
      currentEncryptionKeyId: "enc-2",
    });
    expect(recipientEncryptionKey(c)?.keyId).toBe("enc-2");
    expect(recipientEncryptionKey(card({ ...c, currentEncryptionKeyId: "nope" }))?.keyId).toBe("enc-1");
    expect(recipientEncryptionKey(card({}))).toBeNull();
    // A card that skipped validation: an Ed25519 key in the encryption slot is skipped, not sealed to.
    const unchecked = { ...cardBase, keys: { encryption: [enc("wrong-codec", encodeEd25519PublicKey(alice.publicKey)), enc("enc-1", encodeX25519PublicKey(mallory.publicKey))] } };
    expect(recipientEncryptionKey(unchecked as unknown as AgentCard)?.keyId).toBe("enc-1");
  });
  test("role rule: an Ed25519 entry in the encryption slot rejects the card, by label and by key bytes", () => {
    expect(validateAgentCard({ ...cardBase, keys: { encryption: [key("e", alice.publicKey, "active")] } }).ok).toBe(false);
    const mislabelled = { ...key("e", alice.publicKey, "active"), algorithm: "X25519" };
    expect(validateAgentCard({ ...cardBase, keys: { encryption: [mislabelled] } })).toMatchObject({ ok: false, issue: "keys.encryption: X25519 key bytes only" });
    expect(validateAgentCard({ ...cardBase, publicKeyMultibase: encodeX25519PublicKey(alice.publicKey) })).toMatchObject({ ok: false, issue: "publicKeyMultibase: expected a multibase Ed25519 key" });
  });
  test("accepts what INK's card rules accept: no caps INK does not set (issue 12)", () => {
    const governance = { maxAcceptedDelegationDepth: 2, supportedTransports: Array.from({ length: 20 }, (_, i) => `transport_${"x".repeat(70)}_${i}`) };
    expect(validateAgentCard({ ...cardBase, governance })).toMatchObject({ ok: true });
    const revoked = key("old", mallory.publicKey, "revoked", { revokedAt: "2026-02-01T00:00:00.000Z", revokeReason: "leaked ".repeat(100) });
    expect(validateAgentCard({ ...cardBase, keys: { signing: [key("k", alice.publicKey, "active"), revoked] } })).toMatchObject({ ok: true });
  });
  test("unknown top-level members are preserved (the card object itself is returned)", () => {
    const input = { ...cardBase, futureExtension: { note: "kept" } };
    const r = validateAgentCard(input);
    expect(r.ok && (r.card as unknown)).toBe(input);
  });
  test("card fetch vets every URL field through the SSRF gate unless told not to", () => {
    const res = (c: Record<string, unknown>) => ({
      status: 200, contentType: "application/json", contentLength: null, body: JSON.stringify({ ...cardBase, ...c }), requestedAgentId: ALICE, resolutionDid: null,
    });
    expect(checkCardFetchResponse(res({})).ok).toBe(true);
    expect(checkCardFetchResponse(res({ endpoint: "https://127.0.0.1/ink" }))).toMatchObject({ ok: false, reason: "private_host" });
    expect(checkCardFetchResponse(res({ endpoint: "https://[::1]/ink" }))).toMatchObject({ ok: false, reason: "private_host" });
    expect(checkCardFetchResponse({ ...res({ endpoint: "https://localhost/ink" }), allowPrivateHosts: true }).ok).toBe(true);
    const audit = { capabilities: { ...cardBase.capabilities, thirdPartyAudit: { services: [{ endpoint: "https://10.0.0.1/a", did: "did:web:a", publicKey: "z" }], submitPolicy: "all" } } };
    expect(checkCardFetchResponse(res(audit))).toMatchObject({ ok: false, reason: "private_host" });
  });
});
