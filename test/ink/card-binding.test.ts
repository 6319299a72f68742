// The identity-binding rule (INK §2.1, §13): a card binds keys other than the genesis key of a
// key-derived id only under a proof rooted in that key; an unsigned card names the genesis key alone.
import { describe, expect, test } from "bun:test";
import {
  bindAgentCard,
  deriveAgentId,
  encodeEd25519PublicKey,
  encodeX25519PublicKey,
  generateEd25519KeyPair,
  recipientEncryptionKey,
  senderKeysFromCard,
  signAgentCard,
  signRotationLink,
  validateAgentCard,
  verifyAgentCardProof,
  verifyWithSenderKeys,
  type AgentCard,
  type Ed25519KeyPair,
} from "../../src/ink/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";

const key = (n: number) => generateEd25519KeyPair(new Uint8Array(32).fill(n));
const G = key(0x21); // the victim's genesis key
const K1 = key(0x22); // the victim's rotated key
const M = key(0x66); // mallory
const ID = deriveAgentId(G.publicKey, "svc");
const mb = (k: Ed25519KeyPair) => encodeEd25519PublicKey(k.publicKey);
const entry = (keyId: string, k: Ed25519KeyPair, status = "active") => ({ keyId, algorithm: "Ed25519", publicKeyMultibase: mb(k), status, validFrom: "2026-01-01T00:00:00.000Z" });
const X = { keyId: "enc-m", algorithm: "X25519", publicKeyMultibase: encodeX25519PublicKey(new Uint8Array(32).fill(7)), status: "active", validFrom: "2026-01-01T00:00:00.000Z" };
const AT = Date.parse("2026-06-01T00:00:00.000Z");

function card(over: Record<string, unknown> = {}): AgentCard {
  const c = {
    protocol: "ink/0.1",
    agentId: ID,
    handle: "vic",
    displayName: "Victim",
    endpoint: "https://mallory.example/ink/v1/x/intent",
    publicKeyMultibase: mb(G),
    capabilities: { intentsAccepted: ["ping"], intentsSent: ["ping"] },
    availability: { timezone: "UTC" },
    ...over,
  };
  const v = validateAgentCard(c);
  if (!v.ok) throw new Error(v.issue);
  return v.card;
}
const signed = (c: AgentCard, signer: Ed25519KeyPair, keyId: string) => {
  const s = signAgentCard(c, signer.secretKey, keyId);
  if (!s.ok) throw new Error(s.reason);
  return s.card as AgentCard;
};
const proofOf = (c: AgentCard) => verifyAgentCardProof(c, { verifier: nativeStrictVerifier });
const bind = (c: AgentCard) => bindAgentCard(c, proofOf(c));
/** Does a transport signature by `signer` verify under the keys the (bound) card gives? */
const speaksWith = (c: AgentCard, signer: Ed25519KeyPair) =>
  verifyWithSenderKeys(senderKeysFromCard(c), AT, null, (pk) => pk.every((b, i) => b === signer.publicKey[i]), { liveAuth: true }).ok;

describe("bindAgentCard: unsigned cards of key-derived ids name the genesis key alone", () => {
  test("the attack card (genesis key + mallory's key + mallory's X25519 key, unsigned) binds only the genesis key", () => {
    const attack = card({ keys: { signing: [entry("sig-vic", G), entry("sig-m", M)], encryption: [X] }, currentSigningKeyId: "sig-m", currentEncryptionKeyId: "enc-m" });
    expect(speaksWith(attack, M)).toBe(true); // what the card says on its own
    const bound = bind(attack);
    expect(bound).toMatchObject({ ok: true, basis: "genesis" });
    if (!bound.ok) return;
    expect(bound.card.keys?.signing?.map((k) => k.keyId)).toEqual(["sig-vic"]);
    expect(speaksWith(bound.card, M)).toBe(false);
    expect(speaksWith(bound.card, G)).toBe(true);
    expect(recipientEncryptionKey(bound.card, AT)).toBeNull(); // no unsigned encryption key either
    expect(bound.card.currentEncryptionKeyId).toBeUndefined();
    expect(attack.keys?.signing).toHaveLength(2); // the input is not modified
  });

  test("a card that names only the genesis key and no encryption key is returned as it is", () => {
    const plain = card({ keys: { signing: [entry("sig-vic", G)], encryption: [] } });
    const bound = bind(plain);
    expect(bound.ok && bound.card).toBe(plain);
  });

  test("the card's own word on the genesis key is kept: a retired or revoked genesis entry stays so (a card may narrow)", () => {
    for (const status of ["retired", "revoked"]) {
      const bound = bind(card({ keys: { signing: [entry("sig-vic", G, status), entry("sig-new", K1)], encryption: [] } }));
      expect(bound.ok).toBe(true);
      if (!bound.ok) continue;
      expect(bound.card.keys?.signing as unknown).toEqual([entry("sig-vic", G, status)]);
      expect(speaksWith(bound.card, G)).toBe(false); // live auth refuses retired keys, revoked never verify
      expect(speaksWith(bound.card, K1)).toBe(false); // a rotation is believed only under a rooted proof
    }
  });

  test("an unsigned card that does not list the genesis key binds nothing", () => {
    expect(bind(card({ keys: { signing: [entry("sig-m", M)], encryption: [] } }))).toMatchObject({ ok: false, reason: "card_identity_mismatch" });
    expect(bind(card({ keys: { signing: [], encryption: [] } }))).toMatchObject({ ok: false, reason: "card_identity_mismatch" });
  });

  test("legacy single-key cards: the top-level key must be the genesis key; encryption keys go", () => {
    expect(bind(card())).toMatchObject({ ok: true, basis: "genesis" });
    expect(bind(card({ publicKeyMultibase: mb(M) }))).toMatchObject({ ok: false, reason: "card_identity_mismatch" });
    const withEnc = bind(card({ keys: { encryption: [X] }, currentEncryptionKeyId: "enc-m" }));
    expect(withEnc.ok && recipientEncryptionKey(withEnc.card, AT)).toBeNull();
  });

  test("binding is idempotent, and every alias of the id (svc/tulpa/ink) binds the same key", () => {
    const attack = card({ keys: { signing: [entry("sig-vic", G), entry("sig-m", M)], encryption: [X] } });
    const once = bind(attack);
    const twice = once.ok ? bind(once.card) : once;
    expect(twice).toEqual(once);
    for (const prefix of ["tulpa:", "ink:"]) {
      const alias = bind(card({ agentId: ID.replace("svc:", prefix), keys: { signing: [entry("sig-vic", G), entry("sig-m", M)], encryption: [] } }));
      expect(alias.ok && alias.card.keys?.signing?.map((k) => k.keyId)).toEqual(["sig-vic"]);
    }
  });
});

describe("bindAgentCard: a rooted proof vouches for every key of the card", () => {
  test("signed by the genesis key: extra keys and the encryption key count", () => {
    const c = signed(card({ keys: { signing: [entry("sig-0", G), entry("sig-x", K1)], encryption: [X] }, currentSigningKeyId: "sig-0", currentEncryptionKeyId: "enc-m", keySetVersion: 1 }), G, "sig-0");
    const bound = bind(c);
    expect(bound).toEqual({ ok: true, card: c, basis: "proof" });
    expect(speaksWith(c, K1)).toBe(true);
  });

  test("signed by a rotated key reached through the rotation chain from the genesis key", () => {
    const set = [
      { keyId: "sig-0", publicKeyMultibase: mb(G), status: "retired" as const },
      { keyId: "sig-1", publicKeyMultibase: mb(K1), status: "active" as const },
    ];
    const link = signRotationLink({ keySetVersion: 2, signing: set, prevKeyId: "sig-0" }, G.secretKey);
    if (!link.ok) throw new Error(link.reason);
    const c = signed(card({ keys: { signing: [entry("sig-0", G, "retired"), entry("sig-1", K1)], encryption: [] }, currentSigningKeyId: "sig-1", keySetVersion: 2, rotationChain: [link.link] }), K1, "sig-1");
    expect(bind(c)).toMatchObject({ ok: true, basis: "proof" });
    expect(speaksWith(c, K1)).toBe(true);
  });

  test("a card signed by a key that does not root in the id binds nothing, whatever it lists", () => {
    const c = signed(card({ keys: { signing: [entry("sig-vic", G), entry("sig-m", M)], encryption: [] }, currentSigningKeyId: "sig-m", keySetVersion: 1 }), M, "sig-m");
    const proof = proofOf(c);
    expect(proof).toMatchObject({ ok: false, reason: "genesis_key_mismatch" });
    expect(bindAgentCard(c, proof)).toMatchObject({ ok: false, reason: "card_identity_mismatch" });
  });
});

describe("bindAgentCard: ids that are not key-derived", () => {
  test("did:web and other DIDs are left as they are (bound by where the card comes from)", () => {
    for (const agentId of ["did:web:example.com", "did:plc:abc123"]) {
      const c = card({ agentId, publicKeyMultibase: mb(M), keys: { signing: [entry("sig-m", M)], encryption: [X] } });
      expect(bind(c)).toEqual({ ok: true, card: c, basis: "other" });
    }
  });
});
