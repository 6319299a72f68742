// INK §13 Agent Card proof, rotation chains and continuity: one test per rejection reason, the
// accepted shapes the text allows, and a seeded bounded fuzz. The upstream `agent-card-signature`
// vectors run in the conformance suite; these build their own signatures so every reason is reached
// from a card Kith itself could produce, and check signing bytes against hand-written text.
import { describe, expect, test } from "bun:test";
import {
  agentCardSigningInput,
  authenticateAgentCard,
  canonicalize,
  checkCardContinuity,
  checkCardFetchResponse,
  ed25519Sign,
  encodeSignature,
  rotationLinkSigningInput,
  validateAgentCard,
  verifyAgentCardProof,
  type Ed25519KeyPair,
  type RotationLink,
} from "../../src/ink/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import { rng } from "./helpers.ts";
import { card, G, ID, K1, K2, key, L2, L3, link, M, M2, mb, SET1, SET2, SET3, sign, V1, V2, V3, verify, type Card, type Status } from "./card-builders.ts";

describe("card proof: accepted", () => {
  test("unsigned card → unsigned (Phase A/B: not rejected for being unsigned)", () => {
    expect(verify(card(SET1, 1, "sig-0"))).toEqual({ ok: true, kind: "unsigned" });
  });

  test("genesis-signed card, one rotation, two rotations: signed and rooted; all schema-valid", () => {
    for (const c of [V1, V2, V3]) expect(validateAgentCard(c).ok).toBe(true);
    expect(verify(V1)).toMatchObject({ ok: true, kind: "signed", keyId: "sig-0", keySetVersion: 1, anchor: "genesis" });
    expect(verify(V2)).toMatchObject({ ok: true, kind: "signed", keyId: "sig-1", keySetVersion: 2, anchor: "rotation-chain" });
    const r = verify(V3);
    expect(r).toMatchObject({ ok: true, kind: "signed", keyId: "sig-2", keySetVersion: 3, anchor: "rotation-chain" });
    expect(r.ok && r.kind === "signed" && Buffer.from(r.publicKey).equals(Buffer.from(K2.publicKey))).toBe(true);
  });

  test("signing input is the domain + JCS of the card minus only cardSignature (unknown members covered)", () => {
    const withExtra = sign(card(SET1, 1, "sig-0", { vendorThing: { z: 1, a: [true, null] } }), G);
    const input = agentCardSigningInput(withExtra);
    const { cardSignature: _s, ...rest } = withExtra;
    expect(input).toEqual({ ok: true, text: "ink/agent-card\n" + (canonicalize(rest) as { text: string }).text });
    expect(input.ok && input.text.includes('"vendorThing":{"a":[true,null],"z":1}')).toBe(true);
    expect(verify(withExtra)).toMatchObject({ ok: true, kind: "signed" });
    // The rotation domain is its own: the link minus only `signature`.
    const { signature: _l, ...body } = L2;
    expect(rotationLinkSigningInput(L2)).toEqual({ ok: true, text: "ink/card-rotation\n" + (canonicalize(body) as { text: string }).text });
  });

  test("non-ASCII member names are ordered by UTF-16 code units, not code points", () => {
    const names = { "\uff5a": 1, "\u{1F600}": 2, "\u00e9": 3 }; // U+FF5A, U+1F600 (D83D DE00), U+00E9
    const c = card(SET1, 1, "sig-0", { ext: names });
    const input = agentCardSigningInput(c);
    expect(input.ok && input.text.includes('"ext":{"\u00e9":3,"\u{1F600}":2,"\uff5a":1}')).toBe(true);
    const good = { ...c, cardSignature: { keyId: "sig-0", signature: encodeSignature(ed25519Sign(new TextEncoder().encode((input as { text: string }).text), G.secretKey)) } };
    expect(verify(good)).toMatchObject({ ok: true, kind: "signed" });
    // A signer that sorted by code point produced other bytes: that signature must not verify.
    const codePointText = (input as { text: string }).text.replace('"ext":{"\u00e9":3,"\u{1F600}":2,"\uff5a":1}', '"ext":{"\u00e9":3,"\uff5a":1,"\u{1F600}":2}');
    const bad = { ...c, cardSignature: { keyId: "sig-0", signature: encodeSignature(ed25519Sign(new TextEncoder().encode(codePointText), G.secretKey)) } };
    expect(verify(bad)).toMatchObject({ ok: false, reason: "invalid_signature" });
  });

  test("legacy card (no keys.signing): keyId bootstrap, the top-level key, which must be the genesis key", () => {
    const { keys: _k, currentSigningKeyId: _c, ...legacy } = card(SET1, 1, "sig-0");
    expect(verify(sign(legacy, G, "bootstrap"))).toMatchObject({ ok: true, kind: "signed", keyId: "bootstrap", anchor: "genesis" });
    // [C16]: `legacy` is the transport-resolution label, not the card-proof keyId.
    expect(verify(sign(legacy, G, "legacy"))).toMatchObject({ ok: false, reason: "legacy_bootstrap_mismatch" });
    expect(verify(sign({ ...legacy, publicKeyMultibase: mb(K1) }, K1, "bootstrap"))).toMatchObject({ ok: false, reason: "genesis_key_mismatch" });
  });

  test("link 1: any prevKeyId reading (genesis keyId, bootstrap, empty, null) and any first version", () => {
    for (const prev of ["sig-0", "bootstrap", "", null]) {
      const c = sign(card(SET2, 2, "sig-1", { rotationChain: [link(2, SET2, prev, G)] }), K1);
      expect(verify(c)).toMatchObject({ ok: true, kind: "signed", anchor: "rotation-chain" });
    }
    // First link at version 1 (the chain restates the set under the genesis key), then 2.
    const l1 = link(1, SET1, null, G);
    const l2 = link(2, SET2, "sig-0", G);
    expect(verify(sign(card(SET2, 2, "sig-1", { rotationChain: [l1, l2] }), K1))).toMatchObject({ ok: true, anchor: "rotation-chain" });
    expect(verify(sign(card(SET2, 7, "sig-1", { rotationChain: [link(7, SET2, "sig-0", G)] }), K1))).toMatchObject({ ok: true });
  });

  test("head set equality ignores order, an empty rotationChain reads as absent", () => {
    const reordered = card(SET2, 2, "sig-1", { rotationChain: [L2] });
    reordered.keys!.signing.reverse();
    expect(verify(sign(reordered, K1))).toMatchObject({ ok: true });
    expect(verify(sign(card(SET1, 1, "sig-0", { rotationChain: [] }), G))).toMatchObject({ ok: true, anchor: "genesis" });
  });

  test("did:web: the signer must be a key of the resolved DID document; unresolved → unanchored", () => {
    const web = sign({ ...card(SET2, 2, "sig-1"), agentId: "did:web:gina.example", endpoint: "https://gina.example/ink/v1/did:web:gina.example/intent" }, K1);
    expect(verify(web, [G.publicKey, K1.publicKey])).toMatchObject({ ok: true, kind: "signed", anchor: "did-web" });
    expect(verify(web, [G.publicKey])).toMatchObject({ ok: false, reason: "didweb_signer_not_anchored" });
    expect(verify(web, [])).toMatchObject({ ok: false, reason: "didweb_signer_not_anchored" });
    expect(verify(web, null)).toMatchObject({ ok: true, kind: "signed", anchor: "unanchored" });
    expect(verify(web)).toMatchObject({ ok: true, anchor: "unanchored" });
  });

  test("did:web with a rotationChain: link 1 roots in the DID document, the head binds the card", () => {
    const web = (c: Card) => ({ ...c, agentId: "did:web:gina.example", endpoint: "https://gina.example/ink/v1/did:web:gina.example/intent" });
    const chained = sign(web(card(SET3, 3, "sig-2", { rotationChain: [L2, L3] })), K2);
    // K2 is not in the document; the chain from G (a document key) reaches it.
    expect(verify(chained, [G.publicKey])).toMatchObject({ ok: true, kind: "signed", keyId: "sig-2", anchor: "did-web" });
    expect(verify(chained, [M.publicKey, K2.publicKey])).toMatchObject({ ok: false, reason: "chain_link_invalid_signature" });
    expect(verify(chained, [])).toMatchObject({ ok: false, reason: "chain_link_invalid_signature" });
    expect(verify(sign(web(card(SET3, 4, "sig-2", { rotationChain: [L2, L3] })), K2), [G.publicKey])).toMatchObject({ ok: false, reason: "head_version_mismatch" });
    expect(verify(chained, null)).toMatchObject({ ok: true, anchor: "unanchored" });
  });
});

describe("card proof: every rejection reason", () => {
  test("tampered member → invalid_signature (never demoted to unsigned)", () => {
    expect(verify({ ...V1, displayName: "Mallory" })).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(verify({ ...V1, addedLater: true })).toMatchObject({ ok: false, reason: "invalid_signature" });
    const inner = structuredClone(V3);
    (inner.keys!.signing[2] as Record<string, unknown>).validFrom = "2026-01-02T00:00:00.000Z";
    expect(verify(inner)).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(verify(sign(card(SET1, 1, "sig-0"), M))).toMatchObject({ ok: false, reason: "invalid_signature" });
  });

  test("malformed cardSignature → invalid_card", () => {
    const sig = V1.cardSignature as { keyId: string; signature: string };
    expect(verify({ ...V1, cardSignature: { keyId: "sig-0", signature: sig.signature.slice(1) } })).toMatchObject({ ok: false, reason: "invalid_card" });
    expect(verify({ ...V1, cardSignature: "x" })).toMatchObject({ ok: false, reason: "invalid_card" });
    expect(verify({ ...V1, cardSignature: null })).toMatchObject({ ok: false, reason: "invalid_card" });
    expect(verify({ ...V1, cardSignature: { signature: sig.signature } })).toMatchObject({ ok: false, reason: "invalid_card" });
    expect(verify({ ...V1, cardSignature: { keyId: "sig-0", signature: sig.signature }, fraction: 1.5 })).toMatchObject({ ok: false, reason: "invalid_card" });
  });

  test("an active entry that is not the currentSigningKeyId → signer_not_current", () => {
    const c = card([["sig-0", G, "active"], ["sig-1", K1, "active"]], 1, "sig-1");
    expect(verify(sign(c, G, "sig-0"))).toMatchObject({ ok: false, reason: "signer_not_current" });
  });

  test("retired or revoked signer entry → signer_not_active; a keyId naming no entry → signer_absent_from_signing", () => {
    const retired = card([["sig-0", G, "retired"]], 1, "sig-0");
    expect(verify(sign(retired, G))).toMatchObject({ ok: false, reason: "signer_not_active" });
    const revokedAt = card(SET1, 1, "sig-0");
    revokedAt.keys!.signing[0]!.revokedAt = "2026-01-01T00:00:00.000Z";
    expect(verify(sign(revokedAt, G))).toMatchObject({ ok: false, reason: "signer_not_active" });
    expect(verify(sign(card(SET1, 1, "sig-5"), G))).toMatchObject({ ok: false, reason: "signer_absent_from_signing" });
    expect(verify(sign(card(SET2, 2, "sig-1", { rotationChain: [L2] }), K1, "sig-9"))).toMatchObject({ ok: false, reason: "signer_absent_from_signing" });
  });

  test("a key-set card without currentSigningKeyId, or repeating a keyId → missing_current_signing_key_id, duplicate_key_id", () => {
    const { currentSigningKeyId: _c, ...noCurrent } = card(SET1, 1, "sig-0");
    expect(verify(sign(noCurrent, G, "sig-0"))).toMatchObject({ ok: false, reason: "missing_current_signing_key_id" });
    const dup = card([["sig-0", G, "active"], ["sig-0", K1, "retired"]], 1, "sig-0");
    expect(verify(sign(dup, G))).toMatchObject({ ok: false, reason: "duplicate_key_id" });
  });

  test("a present keys.signing or rotationChain that is not an array is never read as absent → invalid_card", () => {
    const { currentSigningKeyId: _c, ...base } = card(SET1, 1, "sig-0");
    for (const signing of [{ bad: true }, null, "k"]) expect(verify(sign({ ...base, keys: { signing, encryption: [] } } as unknown as Card, G, "bootstrap"))).toMatchObject({ ok: false, reason: "invalid_card" });
    expect(verify(sign(card(SET1, 1, "sig-0", { rotationChain: { 0: L2 } }), G))).toMatchObject({ ok: false, reason: "invalid_card" });
  });

  test("signer key that is not Ed25519 → invalid_key_encoding", () => {
    const c = card(SET1, 1, "sig-0");
    c.keys!.signing[0]!.publicKeyMultibase = "z6LSe2nLiwHfxNtP2FQBH8w7R8mcHnNTHW4rtRGokD2a4squ";
    expect(verify(sign(c, G))).toMatchObject({ ok: false, reason: "invalid_key_encoding" });
  });

  test("signed card without keySetVersion → missing_key_set_version", () => {
    const { keySetVersion: _v, ...c } = card(SET1, 1, "sig-0");
    expect(verify(sign(c, G))).toMatchObject({ ok: false, reason: "missing_key_set_version" });
  });

  test("key-derived id, signer not genesis, no chain → genesis_key_mismatch; no root INK defines → unrooted_principal", () => {
    expect(verify(sign(card(SET2, 2, "sig-1"), K1))).toMatchObject({ ok: false, reason: "genesis_key_mismatch" });
    expect(verify(sign({ ...card(SET1, 1, "sig-0"), agentId: "tulpa:zBAD", endpoint: "https://gina.example/i" }, G))).toMatchObject({ ok: false, reason: "unrooted_principal" });
    for (const agentId of [`did:key:${mb(G)}`, "did:plc:abc", "raw:whatever"]) {
      expect(verify(sign({ ...card(SET1, 1, "sig-0"), agentId }, G))).toMatchObject({ ok: false, reason: "unrooted_principal" });
    }
  });

  test("link 1 not signed by genesis → chain_link_invalid_signature", () => {
    const forged = link(2, SET2, "sig-0", M);
    expect(verify(sign(card(SET2, 2, "sig-1", { rotationChain: [forged] }), K1))).toMatchObject({ ok: false, reason: "chain_link_invalid_signature" });
  });

  test("a tampered link → chain_link_invalid_signature", () => {
    const tampered = { ...L3, signing: [...L3.signing, { keyId: "sig-m", publicKeyMultibase: mb(M), status: "active" as const }] };
    const set: Array<[string, Ed25519KeyPair, Status]> = [...SET3, ["sig-m", M, "active"]];
    expect(verify(sign(card(set, 3, "sig-m", { rotationChain: [L2, tampered] }), M))).toMatchObject({ ok: false, reason: "chain_link_invalid_signature" });
  });

  test("link version gap → chain_noncontiguous_version", () => {
    const l4 = link(4, SET3, "sig-1", K1);
    expect(verify(sign(card(SET3, 4, "sig-2", { rotationChain: [L2, l4] }), K2))).toMatchObject({ ok: false, reason: "chain_noncontiguous_version" });
    const back = link(2, SET3, "sig-1", K1);
    expect(verify(sign(card(SET3, 2, "sig-2", { rotationChain: [L2, back] }), K2))).toMatchObject({ ok: false, reason: "chain_noncontiguous_version" });
  });

  test("link signed by a key not active in the previous set → chain_link_signer_not_active", () => {
    const byRetired = link(3, SET3, "sig-0", G); // sig-0 is retired in L2's set
    expect(verify(sign(card(SET3, 3, "sig-2", { rotationChain: [L2, byRetired] }), K2))).toMatchObject({ ok: false, reason: "chain_link_signer_not_active" });
    const unknown = link(3, SET3, "sig-x", K1);
    expect(verify(sign(card(SET3, 3, "sig-2", { rotationChain: [L2, unknown] }), K2))).toMatchObject({ ok: false, reason: "chain_link_signer_not_active" });
    // prevKeyId names sig-1 (active) but another key signed: the named key is the signer.
    const wrongSigner = link(3, SET3, "sig-1", K2);
    expect(verify(sign(card(SET3, 3, "sig-2", { rotationChain: [L2, wrongSigner] }), K2))).toMatchObject({ ok: false, reason: "chain_link_invalid_signature" });
  });

  test("head version ≠ card keySetVersion → head_version_mismatch", () => {
    expect(verify(sign(card(SET3, 4, "sig-2", { rotationChain: [L2, L3] }), K2))).toMatchObject({ ok: false, reason: "head_version_mismatch" });
  });

  test("head set ≠ keys.signing by keyId, raw key or status → head_set_mismatch", () => {
    const status: Array<[string, Ed25519KeyPair, Status]> = [["sig-0", G, "active"], ["sig-1", K1, "retired"], ["sig-2", K2, "active"]];
    expect(verify(sign(card(status, 3, "sig-2", { rotationChain: [L2, L3] }), K2))).toMatchObject({ ok: false, reason: "head_set_mismatch" });
    const extra: Array<[string, Ed25519KeyPair, Status]> = [...SET3, ["sig-m", M, "retired"]];
    expect(verify(sign(card(extra, 3, "sig-2", { rotationChain: [L2, L3] }), K2))).toMatchObject({ ok: false, reason: "head_set_mismatch" });
    const renamed: Array<[string, Ed25519KeyPair, Status]> = [["sig-0", G, "retired"], ["sig-1", K1, "retired"], ["sig-two", K2, "active"]];
    expect(verify(sign(card(renamed, 3, "sig-two", { rotationChain: [L2, L3] }), K2))).toMatchObject({ ok: false, reason: "head_set_mismatch" });
    // Same keyId, other key: the card swaps sig-1's key for mallory's.
    const swapped: Array<[string, Ed25519KeyPair, Status]> = [["sig-0", G, "retired"], ["sig-1", M, "retired"], ["sig-2", K2, "active"]];
    expect(verify(sign(card(swapped, 3, "sig-2", { rotationChain: [L2, L3] }), K2))).toMatchObject({ ok: false, reason: "head_set_mismatch" });
    // A legacy card cannot bind a chain head.
    const { keys: _k, currentSigningKeyId: _c, ...legacy } = card(SET1, 2, "sig-0", { rotationChain: [link(2, SET1, null, G)] });
    expect(verify(sign(legacy, G, "bootstrap"))).toMatchObject({ ok: false, reason: "head_set_mismatch" });
  });

  test("33 links → chain_too_long (and the card schema refuses them too); 32 links verify", () => {
    let set: Array<[string, Ed25519KeyPair, Status]> = SET1;
    let prev: [string, Ed25519KeyPair] = ["sig-0", G];
    const chain: RotationLink[] = [];
    const states: Array<{ set: typeof set; signer: [string, Ed25519KeyPair] }> = [];
    for (let v = 2; v <= 34; v++) {
      const next = key(0x20 + v);
      set = [...set.map(([id, k]) => [id, k, "retired"] as [string, Ed25519KeyPair, Status]), [`sig-${v}`, next, "active"]].slice(-32) as typeof set;
      chain.push(link(v, set, prev[0], prev[1]));
      prev = [`sig-${v}`, next];
      states.push({ set, signer: prev });
    }
    const s33 = states[31]!;
    const at32 = sign(card(s33.set, 33, s33.signer[0], { rotationChain: chain.slice(0, 32) }), s33.signer[1]);
    expect(verify(at32)).toMatchObject({ ok: true, kind: "signed", keySetVersion: 33 });
    const c = sign(card(set, 34, prev[0], { rotationChain: chain }), prev[1]);
    expect(chain).toHaveLength(33);
    expect(verify(c)).toMatchObject({ ok: false, reason: "chain_too_long" });
    expect(validateAgentCard(c).ok).toBe(false);
  });

  test("malformed links → invalid_card", () => {
    const bad = [
      { ...L2, keySetVersion: 0 },
      { ...L2, signing: [] },
      { ...L2, signing: [{ keyId: "a", publicKeyMultibase: mb(G), status: "rotating" }] },
      { ...L2, signature: "short" },
      (({ prevKeyId: _p, ...rest }) => rest)(L2),
      "link",
    ];
    for (const l of bad) expect(verify(sign(card(SET2, 2, "sig-1", { rotationChain: [l] }), K1))).toMatchObject({ ok: false, reason: "invalid_card" });
    const dup = { ...L2, signing: [{ keyId: "a", publicKeyMultibase: mb(G), status: "active" }, { keyId: "a", publicKeyMultibase: mb(K1), status: "active" }] };
    expect(verify(sign(card(SET2, 2, "sig-1", { rotationChain: [dup] }), K1))).toMatchObject({ ok: false, reason: "chain_duplicate_key_id" });
    // After link 1 a prevKeyId must name a key.
    expect(verify(sign(card(SET3, 3, "sig-2", { rotationChain: [L2, { ...L3, prevKeyId: null }] }), K2))).toMatchObject({ ok: false, reason: "invalid_card" });
  });

  test("the card-fetch gate rejects an invalid proof as invalid_card_proof with the reason", () => {
    const res = (c: unknown) => checkCardFetchResponse({ status: 200, contentType: "application/json", contentLength: null, body: JSON.stringify(c), requestedAgentId: ID, resolutionDid: null, allowPrivateHosts: true });
    expect(res(V3)).toMatchObject({ ok: true, proof: { kind: "signed", anchor: "rotation-chain" } });
    expect(res({ ...V3, displayName: "x" })).toMatchObject({ ok: false, reason: "invalid_card_proof", proofFailure: "invalid_signature" });
    expect(res(card(SET1, 1, "sig-0"))).toMatchObject({ ok: true, proof: { kind: "unsigned" } });
  });
});

describe("continuity against a cached authenticated card", () => {
  const cont = (a: unknown, b: unknown) => checkCardContinuity(a, b, { verifier: nativeStrictVerifier });

  test("no ratchet from an unsigned cached card", () => {
    expect(cont(card(SET3, 3, "sig-2"), card(SET1, 1, "sig-0"))).toEqual({ ok: true });
  });

  test("unsigned after signed → unsigned_after_authenticated", () => {
    expect(cont(V1, card(SET1, 1, "sig-0"))).toMatchObject({ ok: false, reason: "unsigned_after_authenticated" });
    expect(cont(V2, card(SET2, 3, "sig-1"))).toMatchObject({ ok: false, reason: "unsigned_after_authenticated" });
  });

  test("lower keySetVersion → continuity_version_regression, even when validly signed", () => {
    expect(verify(V2).ok).toBe(true);
    expect(cont(V3, V2)).toMatchObject({ ok: false, reason: "continuity_version_regression" });
    expect(cont(V2, V1)).toMatchObject({ ok: false, reason: "continuity_version_regression" });
  });

  test("legitimate rotations: one step, two steps, same version re-signed, version bump by the same key", () => {
    expect(cont(V1, V2)).toEqual({ ok: true });
    expect(cont(V1, V3)).toEqual({ ok: true });
    expect(cont(V2, V3)).toEqual({ ok: true });
    expect(cont(V3, V3)).toEqual({ ok: true });
    expect(cont(V3, sign({ ...V3, displayName: "Gina G." }, K2))).toEqual({ ok: true });
    expect(cont(V1, sign(card(SET1, 2, "sig-0"), G))).toEqual({ ok: true });
  });

  test("a fork from a leaked genesis key verifies cold but is unreachable warm", () => {
    const forkSet2: Array<[string, Ed25519KeyPair, Status]> = [["sig-0", G, "retired"], ["sig-m", M, "active"]];
    const forkSet3: Array<[string, Ed25519KeyPair, Status]> = [["sig-0", G, "retired"], ["sig-m", M, "retired"], ["sig-m2", M2, "active"]];
    const fork = sign(card(forkSet3, 3, "sig-m2", { rotationChain: [link(2, forkSet2, "sig-0", G), link(3, forkSet3, "sig-m", M)] }), M2);
    expect(verify(fork)).toMatchObject({ ok: true, kind: "signed" }); // the documented cold residual
    expect(cont(V2, fork)).toMatchObject({ ok: false, reason: "continuity_unreachable_key" });
  });

  test("equal version with a signer outside the cached set → continuity_unreachable_key", () => {
    const other: Array<[string, Ed25519KeyPair, Status]> = [["sig-0", G, "retired"], ["sig-m", M, "active"]];
    const c = sign(card(other, 2, "sig-m", { rotationChain: [link(2, other, "sig-0", G)] }), M);
    expect(verify(c).ok).toBe(true);
    expect(cont(V2, c)).toMatchObject({ ok: false, reason: "continuity_unreachable_key" });
  });

  test("a higher version without a chain link right above the cached version → continuity_unreachable_key", () => {
    expect(cont(V1, sign(card(SET2, 2, "sig-1"), K1))).toMatchObject({ ok: false, reason: "continuity_unreachable_key" });
    const skipping = sign(card(SET3, 3, "sig-2", { rotationChain: [L3] }), K2);
    expect(cont(V1, skipping)).toMatchObject({ ok: false, reason: "continuity_unreachable_key" });
  });

  test("a signer reached only through a key the cached card revoked → continuity_unreachable_key", () => {
    const revoked = structuredClone(V2);
    revoked.keys!.signing[1]!.status = "revoked"; // as if the cached card had revoked sig-1 (proof not re-checked here)
    expect(cont(revoked, V3)).toMatchObject({ ok: false, reason: "continuity_unreachable_key" });
    expect(cont(V2, V3)).toEqual({ ok: true });
  });

  test("did:web rotation carried by chain links above the cached version", () => {
    const web = (c: Card) => ({ ...c, agentId: "did:web:gina.example", endpoint: "https://gina.example/i" });
    const cached = sign(web(card(SET2, 2, "sig-1")), K1);
    const next = sign(web(card(SET3, 3, "sig-2", { rotationChain: [L3] })), K2);
    expect(cont(cached, next)).toEqual({ ok: true });
    expect(cont(cached, sign(web(card(SET3, 3, "sig-2")), K2))).toMatchObject({ ok: false, reason: "continuity_unreachable_key" });
  });
});

describe("fuzz (seeded, bounded): the verifier and the continuity check never throw", () => {
  const VALUES: unknown[] = [null, 0, -1, 1.5, 2 ** 60, "", "x", "sig-1", "bootstrap", [], {}, [1], { keyId: "sig-1" }, true, "z6Mk", mb(M), "\ud800", NaN];

  test("2000 mutations of signed cards", () => {
    const r = rng(0x13c);
    const sources = [V1, V2, V3];
    for (let i = 0; i < 2000; i++) {
      const original = r.pick(sources);
      const c = structuredClone(original) as Record<string, unknown>;
      // Walk to a random container and replace, delete or add a member.
      let target: Record<string, unknown> | unknown[] = c;
      for (let depth = r.int(5); depth > 0; depth--) {
        const keys = Object.keys(target);
        const child = keys.length ? (target as Record<string, unknown>)[r.pick(keys)] : undefined;
        if (child === null || typeof child !== "object") break;
        target = child as Record<string, unknown>;
      }
      const keys = Object.keys(target);
      const k = keys.length && r.int(4) > 0 ? r.pick(keys) : "extra";
      if (r.int(3) === 0) delete (target as Record<string, unknown>)[k];
      else (target as Record<string, unknown>)[k] = structuredClone(r.pick(VALUES));
      const result = verify(c, r.int(2) ? null : [K1.publicKey]);
      expect(typeof result.ok).toBe("boolean");
      if (!result.ok) expect(typeof result.issue).toBe("string");
      // Oracle: with the same cardSignature, a changed signing input never verifies.
      const before = agentCardSigningInput(original);
      const after = agentCardSigningInput(c);
      const sameProof = JSON.stringify(c.cardSignature) === JSON.stringify(original.cardSignature);
      if (sameProof && before.ok && (!after.ok || after.text !== before.text)) expect(result.ok && result.kind === "signed").toBe(false);
      const trust = authenticateAgentCard(c, { agentId: ID, cachedCard: r.pick([null, ...sources]), didWeb: r.pick([null, { status: "unavailable" }, { status: "resolved", keys: [K1.publicKey] }] as const), enforcePhaseC: r.int(2) === 1, verifier: nativeStrictVerifier });
      expect(typeof trust.ok).toBe("boolean");
      if (sameProof && before.ok && (!after.ok || after.text !== before.text)) expect(trust.ok && trust.reason === "signed_authenticated").toBe(false);
      const cont = checkCardContinuity(r.pick(sources), c, { verifier: nativeStrictVerifier });
      expect(typeof cont.ok).toBe("boolean");
      expect(typeof checkCardContinuity(c, r.pick(sources)).ok).toBe("boolean");
    }
  }, 30_000); // heavy (thousands of requests, mutations or scrypt runs): slow on a loaded machine

  test("arbitrary values never throw", () => {
    const r = rng(7);
    for (let i = 0; i < 300; i++) {
      const v = r.pick([...VALUES, V1, { cardSignature: r.pick(VALUES), keys: r.pick(VALUES), rotationChain: r.pick(VALUES), agentId: r.pick([ID, "did:web:x", r.pick(VALUES)]) }]);
      expect(() => verifyAgentCardProof(v, { didWebKeys: r.pick([null, [], [new Uint8Array(3)], "x" as unknown as Uint8Array[]]) })).not.toThrow();
      expect(() => checkCardContinuity(V1, v)).not.toThrow();
      expect(() => checkCardContinuity(v, V2)).not.toThrow();
    }
  });
});
