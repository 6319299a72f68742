// The whole §13 card decision (authenticateAgentCard): the ratchet before Phase C, Phase C as an
// explicit flag, did:web anchoring and its unavailable document warm and cold, continuity failures
// with their audit event. One test per outcome; the upstream vectors run in the conformance suite.
import { describe, expect, test } from "bun:test";
import { authenticateAgentCard, type CardTrustOptions } from "../../src/ink/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import { card, G, ID, K1, K2, L2, L3, SET1, SET2, SET3, sign, V1, V2, V3, type Card } from "./card-builders.ts";

const WEB = "did:web:gina.example";
const web = (c: Card): Card => ({ ...c, agentId: WEB, endpoint: "https://gina.example/ink/v1/did:web:gina.example/intent" });
const trust = (c: unknown, o: Partial<CardTrustOptions> = {}) =>
  authenticateAgentCard(c, { agentId: (c as { agentId?: string }).agentId ?? ID, verifier: nativeStrictVerifier, ...o });

describe("unsigned cards", () => {
  test("first contact: accepted without Phase C, refused with it (key-derived and other principals apart)", () => {
    const unsigned = card(SET1, 1, "sig-0");
    expect(trust(unsigned)).toMatchObject({ ok: true, reason: "unsigned_first_contact_accepted", proof: { kind: "unsigned" } });
    expect(trust(unsigned, { enforcePhaseC: true })).toMatchObject({ ok: false, reason: "unsigned_key_derived_1_0" });
    expect(trust(web(unsigned), { enforcePhaseC: true })).toMatchObject({ ok: false, reason: "unsigned_1_0_profile" });
    expect(trust(web(unsigned), { enforcePhaseC: false })).toMatchObject({ ok: true, reason: "unsigned_first_contact_accepted" });
  });

  test("after an authenticated card: unsigned_after_authenticated, whatever the Phase C flag", () => {
    for (const enforcePhaseC of [false, true]) {
      expect(trust(card(SET1, 1, "sig-0"), { cachedCard: V1, enforcePhaseC })).toMatchObject({ ok: false, reason: "unsigned_after_authenticated" });
    }
  });
});

describe("signed cards", () => {
  test("rooted cards authenticate, cold and warm (a legitimate rotation continues the cached card)", () => {
    expect(trust(V3)).toMatchObject({ ok: true, reason: "signed_authenticated", proof: { kind: "signed", keyId: "sig-2", anchor: "rotation-chain" } });
    expect(trust(V3, { cachedCard: V1, enforcePhaseC: true })).toMatchObject({ ok: true, reason: "signed_authenticated" });
    expect("auditEvent" in trust(V3)).toBe(false);
  });

  test("an invalid proof is refused with its own reason, never read as unsigned", () => {
    expect(trust({ ...V1, displayName: "Mallory" })).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(trust(sign(card(SET2, 2, "sig-1"), K1))).toMatchObject({ ok: false, reason: "genesis_key_mismatch" });
  });

  test("continuity failures carry card.continuity_violation", () => {
    expect(trust(V2, { cachedCard: V3 })).toMatchObject({ ok: false, reason: "continuity_version_regression", auditEvent: "card.continuity_violation" });
    const skipping = sign(card(SET3, 3, "sig-2", { rotationChain: [L2, L3] }), K2);
    const { rotationChain: _r, ...cachedWithoutChain } = V2;
    expect(trust(skipping, { cachedCard: { ...cachedWithoutChain, keys: { signing: [], encryption: [] } } })).toMatchObject({
      ok: false,
      reason: "continuity_unreachable_key",
      auditEvent: "card.continuity_violation",
    });
  });

  test("the cached card counts as authenticated as passed, with or without its cardSignature (the caller decides)", () => {
    const { cardSignature: _s, ...stripped } = V3;
    expect(trust(V2, { cachedCard: stripped })).toMatchObject({ ok: false, reason: "continuity_version_regression" });
  });

  test("a card for another agent id is refused before any key work", () => {
    expect(authenticateAgentCard(V1, { agentId: WEB })).toMatchObject({ ok: false, reason: "invalid_card" });
    expect(authenticateAgentCard([V1], { agentId: ID })).toMatchObject({ ok: false, reason: "invalid_card" });
  });
});

describe("did:web anchoring", () => {
  const signed = sign(web(card(SET2, 2, "sig-1")), K1);

  test("resolved: the signer must be a document key", () => {
    expect(trust(signed, { didWeb: { status: "resolved", keys: [K1.publicKey] } })).toMatchObject({ ok: true, reason: "signed_authenticated", proof: { anchor: "did-web" } });
    expect(trust(signed, { didWeb: { status: "resolved", keys: [G.publicKey] } })).toMatchObject({ ok: false, reason: "didweb_signer_not_anchored" });
  });

  test("unavailable: card.anchor_unverified warm, or cold without Phase C; cold under Phase C fails closed", () => {
    const unavailable = { status: "unavailable" } as const;
    expect(trust(signed, { didWeb: unavailable })).toMatchObject({ ok: true, reason: "signed_authenticated", auditEvent: "card.anchor_unverified" });
    expect(trust(signed, { didWeb: unavailable, cachedCard: signed, enforcePhaseC: true })).toMatchObject({ ok: true, auditEvent: "card.anchor_unverified" });
    expect(trust(signed, { didWeb: unavailable, enforcePhaseC: true })).toMatchObject({ ok: false, reason: "didweb_resolver_unavailable" });
    expect(trust(signed, { enforcePhaseC: true })).toMatchObject({ ok: false, reason: "didweb_resolver_unavailable" }); // absent = not resolved
  });
});
