// The receiver decision (INK §9, ENCRYPTION §6): one test per rejection reason, then the order
// of checks and the replay-recording rule.
import { describe, expect, test } from "bun:test";
import { nobleEnvelopeCrypto } from "../../src/ink/encryption-noble.ts";
import {
  authenticateInbound,
  buildSignedEnvelope,
  createMemoryNonceStore,
  decideInbound,
  formatTimestamp,
  type InboundContext,
  type InboundDecision,
  inspectInbound,
  type NonceStore,
  prepareOutbound,
  resolveSenderKeys,
  sealEnvelope,
  type SenderKeys,
  signBody,
} from "../../src/ink/index.ts";
import { nativeStrictVerifier } from "../../src/security/ed25519-native.ts";
import {
  ALICE,
  alice,
  BOB,
  bobEncryption,
  bobEncryptionPublic,
  draft,
  ENDPOINT,
  mallory,
  NOW,
  policy,
  type Raw,
  signedRequest,
  TS,
  WORDMARK,
} from "./helpers.ts";

const aliceKeys: SenderKeys = resolveSenderKeys({ agentId: ALICE });
const cardKeys = (status: string, extra: Record<string, unknown> = {}): SenderKeys => ({
  kind: "key-set",
  source: "card",
  keys: [{ keyId: "sig-1", publicKey: alice.publicKey, status, ...extra }],
});

function ctx(over: Partial<InboundContext> = {}): InboundContext {
  return { keys: aliceKeys, verifier: nativeStrictVerifier, replay: { store: createMemoryNonceStore() }, decryptionKeys: [bobEncryption], envelopeCrypto: nobleEnvelopeCrypto, ...over };
}

function decide(raw: Pick<Raw, "bodyText" | "authorization">, c: InboundContext = ctx(), now = NOW, p = policy): InboundDecision {
  return decideInbound({ body: new TextEncoder().encode(raw.bodyText), authorization: raw.authorization, now }, p, c);
}

function valid(over: Parameters<typeof draft>[0] = {}): Raw {
  return signedRequest({ ...draft(over) });
}

function reason(d: InboundDecision): string {
  return d.ok ? "accepted" : d.reason;
}

function sealed(over: Parameters<typeof draft>[0] = {}, sealOver: Record<string, unknown> = {}): Raw {
  const env = buildSignedEnvelope(draft({ intent: "schedule_meeting", payload: { proposedTimes: [TS], topic: "sync", format: "video", urgency: "low" }, ...over }), alice.secretKey, WORDMARK);
  if (!env.ok) throw new Error(env.reason);
  const s = sealEnvelope({ crypto: nobleEnvelopeCrypto, inner: env.envelope, senderDid: ALICE, recipientPublicKey: bobEncryptionPublic, timestamp: TS, messageNonce: `sealed-${env.envelope.nonce}`, wordmark: WORDMARK, ...sealOver });
  if (!s.ok) throw new Error(s.reason);
  return signedRequest(s.envelope, { skipBodySignature: true });
}

describe("accepts", () => {
  test("a valid plaintext intent, reporting the canonical principal and the key", () => {
    const d = decide(valid());
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.principal.startsWith("key:z6Mk")).toBe(true);
    expect([d.keyId, d.keyStatus, d.sealed, d.nonce.recorded]).toEqual(["bootstrap", "active", false, true]);
  });
  test("a sealed confidential intent: decrypts, checks the inner envelope, records messageNonce", () => {
    const raw = sealed();
    const store = createMemoryNonceStore();
    const d = decide(raw, ctx({ replay: { store } }));
    expect(d.ok && [d.sealed, d.envelope.intent, d.nonce.value]).toEqual([true, "schedule_meeting", raw.body.messageNonce as string]);
  });
  test("the sender side round-trips through the receiver (prepareOutbound → decideInbound)", () => {
    const env = buildSignedEnvelope(draft({ intent: "schedule_meeting", payload: { proposedTimes: [TS], topic: "x", format: "phone", urgency: "normal" }, signingKeyId: "sig-1" }), alice.secretKey, WORDMARK);
    if (!env.ok) throw new Error(env.reason);
    const req = prepareOutbound({ envelope: env.envelope, recipient: { agentId: BOB, endpoint: ENDPOINT, encryptionKey: bobEncryptionPublic }, secretKey: alice.secretKey, keyId: "sig-1", wordmark: WORDMARK, envelopeCrypto: nobleEnvelopeCrypto });
    expect(req.ok && req.sealed).toBe(true);
    if (!req.ok) return;
    expect(reason(decide(req, ctx({ keys: cardKeys("active") })))).toBe("accepted");
  });
  test("deferred replay returns the nonce to record instead of recording it", () => {
    const d = decide(valid(), ctx({ replay: { defer: true } }));
    expect(d.ok && d.nonce.recorded).toBe(false);
  });
  test("the two phases can straddle an async key lookup", async () => {
    const raw = valid();
    const p = inspectInbound({ body: raw.bodyText, authorization: raw.authorization, now: NOW }, policy);
    expect(p.ok).toBe(true);
    if (!p.ok) return;
    const keys = await Promise.resolve(resolveSenderKeys({ agentId: p.from }));
    expect(authenticateInbound(p, ctx({ keys })).ok).toBe(true);
  });
});

describe("one rejection per reason", () => {
  const cases: [string, () => InboundDecision][] = [
    ["body_too_large", () => decide({ ...valid(), bodyText: `{"a":"${"x".repeat(70_000)}"}` })],
    ["utf8", () => decideInbound({ body: Uint8Array.of(0x7b, 0xff, 0x7d), authorization: "x", now: NOW }, policy, ctx())],
    ["surrogate", () => decide({ bodyText: '{"a":"\\ud800"}', authorization: "" })],
    ["number-range", () => decide({ bodyText: '{"a":1e309,"a":1}', authorization: "" })],
    ["member-name-escape", () => decide({ bodyText: '{"\\u0061":1}', authorization: "" })],
    ["invalid_json", () => decide({ bodyText: "{nope", authorization: "" })],
    ["invalid_envelope", () => decide(signedRequest({ ...draft(), extra: 1 }))],
    ["unsupported_protocol_version", () => decide(signedRequest({ ...draft(), protocol: "ink/0.3" }))],
    ["unsupported_intent", () => decide(valid({ intent: "teleport", payload: {} }))],
    ["encryption_required", () => decide(valid({ intent: "schedule_meeting", payload: { proposedTimes: [TS], topic: "t", format: "video", urgency: "low" } }))],
    ["invalid_payload", () => decide(valid({ payload: { note: 5 } }))],
    ["recipient_mismatch", () => decide(valid({ to: ALICE }))],
    ["encryption_unsupported", () => decide(sealed(), ctx(), NOW, { ...policy, acceptsSealed: false })],
    ["invalid_outer_envelope", () => decide(signedRequest({ ...sealed().body, messageNonce: "short" }, { skipBodySignature: true }))],
    ["missing_authorization", () => decide({ ...valid(), authorization: "" })],
    ["invalid_auth_scheme", () => decide({ ...valid(), authorization: "Bearer x" })],
    ["invalid_from_field", () => decide(signedRequest({ ...draft(), from: `did:web:${"a".repeat(250)}` }))],
    ["missing_timestamp", () => {
      const { timestamp: _t, ...body } = draft();
      return decide(signedRequest(body));
    }],
    ["invalid_timestamp", () => decide(signedRequest({ ...draft(), timestamp: "2026-07-01 12:00:00Z" }))],
    ["timestamp_too_far_future", () => decide(valid(), ctx(), NOW - 30_001)],
    ["timestamp_expired", () => decide(valid(), ctx(), NOW + 300_001)],
    ["nonce_handling_required", () => decide(valid(), { ...ctx(), replay: undefined } as unknown as InboundContext)],
    ["missing_nonce", () => decide(valid({ nonce: "short" as string }))],
    ["invalid_signature_base", () => decide(valid(), ctx(), NOW, { ...policy, endpointPath: "/a\nb" })],
    ["unresolvable_sender_key", () => decide(valid(), ctx({ keys: { kind: "none" } }))],
    ["invalid_signature", () => decide(signedRequest({ ...draft() }, { transportKey: mallory.secretKey }))],
    ["signature_verification_failed", () => decide(signedRequest({ ...draft() }, { transportKey: mallory.secretKey }), ctx({ keys: cardKeys("active") }))],
    ["retired_key_for_live_auth", () => decide(valid(), ctx({ keys: cardKeys("retired") }))],
    ["invalid_body_signature", () => decide(signedRequest({ ...draft() }, { bodyKey: mallory.secretKey }))],
    ["decrypt_failed", () => decide(sealed(), ctx({ decryptionKeys: [new Uint8Array(32).fill(9)] }))],
    ["nonce_replay", () => {
      const store = createMemoryNonceStore();
      const raw = valid();
      decide(raw, ctx({ replay: { store } }));
      return decide(raw, ctx({ replay: { store } }));
    }],
    ["nonce_store_error", () => decide(valid(), ctx({ replay: { store: { addIfAbsent: () => { throw new Error("disk"); } } } }))],
  ];
  for (const [want, run] of cases) test(want, () => expect(reason(run())).toBe(want));

  test("missing_sender is unreachable: the envelope schema (from is required) runs first", () => {
    const { from: _f, ...body } = draft();
    expect(reason(decide(signedRequest(body)))).toBe("invalid_envelope");
  });
  test("key:/raw: spellings of from are refused outright ([C5])", () => {
    expect(reason(decide(signedRequest({ ...draft(), from: "key:z6Mkabc" })))).toBe("invalid_from_field");
  });
  test("a retired key passes live auth only with a configured grace window", () => {
    expect(reason(decide(valid(), ctx({ keys: cardKeys("retired"), allowRetiredForLiveAuth: true })))).toBe("accepted");
  });
  test("a revoked or out-of-window key never verifies", () => {
    expect(reason(decide(valid(), ctx({ keys: cardKeys("revoked") })))).toBe("signature_verification_failed");
    expect(reason(decide(valid(), ctx({ keys: cardKeys("active", { validUntil: "2026-01-01T00:00:00.000Z" }) })))).toBe("signature_verification_failed");
    expect(reason(decide(valid(), ctx({ keys: cardKeys("active", { revokedAt: "2027-01-01T00:00:00.000Z" }) })))).toBe("signature_verification_failed");
  });
  test("an empty card key set is authoritative: no bootstrap fallback", () => {
    expect(reason(decide(valid(), ctx({ keys: { kind: "key-set", source: "card", keys: [] } })))).toBe("signature_verification_failed");
  });
  test("sealed inner checks: unsupported inner intent, inner body signature, inner to", () => {
    const unsupported = sealed({ intent: "ask", payload: { question: "q" } });
    expect(reason(decide(unsupported, ctx(), NOW, { ...policy, supportedIntents: ["schedule_meeting"] }))).toBe("unsupported_intent");
    // Inner body signed by mallory, outer transport by alice.
    const env = buildSignedEnvelope(draft({ intent: "ping" }), mallory.secretKey, WORDMARK);
    if (!env.ok) throw new Error("env");
    const s = sealEnvelope({ crypto: nobleEnvelopeCrypto, inner: env.envelope, senderDid: ALICE, recipientPublicKey: bobEncryptionPublic, timestamp: TS, messageNonce: "inner-forged-nonce-0001", wordmark: WORDMARK });
    if (!s.ok) throw new Error(s.reason);
    expect(reason(decide(signedRequest(s.envelope, { skipBodySignature: true })))).toBe("invalid_body_signature");
    const toAlice = sealed({ to: ALICE }, { recipientDid: undefined });
    expect(decide(toAlice)).toEqual({ ok: false, reason: "decrypt_failed", detail: "recipient_mismatch" });
  });
  test("a confidential intent inside a sealed envelope is not gated again; plaintext ping may be sealed too", () => {
    expect(reason(decide(sealed({ intent: "ping", payload: {} })))).toBe("accepted");
  });
});

describe("order of checks", () => {
  test("structure before recipient binding before transport auth", () => {
    const bad = signedRequest({ ...draft({ to: ALICE }), extra: true });
    expect(reason(decide({ ...bad, authorization: "" }))).toBe("invalid_envelope");
    expect(reason(decide({ ...valid({ to: ALICE }), authorization: "" }))).toBe("recipient_mismatch");
  });
  test("unsupported_intent before encryption_required before payload schema ([C2])", () => {
    const confidential = { intent: "schedule_meeting", payload: { wrong: true } };
    expect(reason(decide(valid(confidential), ctx(), NOW, { ...policy, supportedIntents: [] }))).toBe("unsupported_intent");
    expect(reason(decide(valid(confidential)))).toBe("encryption_required");
    expect(reason(decide(valid({ intent: "ask", payload: { wrong: true } })))).toBe("invalid_payload");
  });
  test("header grammar before timestamp before freshness before nonce before signatures", () => {
    const stale = signedRequest({ ...draft({ nonce: "short" as string }) }, { transportKey: mallory.secretKey });
    expect(reason(decide({ ...stale, authorization: "INK-Ed25519 bad" }, ctx(), NOW + 400_000))).toBe("invalid_auth_scheme");
    expect(reason(decide(stale, ctx(), NOW + 400_000))).toBe("timestamp_expired");
    expect(reason(decide(stale))).toBe("missing_nonce");
    expect(reason(decide(signedRequest({ ...draft() }, { transportKey: mallory.secretKey, bodyKey: mallory.secretKey })))).toBe("invalid_signature");
  });
  test("transport signature before body signature", () => {
    const both = signedRequest({ ...draft() }, { transportKey: mallory.secretKey, bodyKey: mallory.secretKey });
    expect(reason(decide(both))).toBe("invalid_signature");
  });
  test("the transport signature binds PATH and recipientDid", () => {
    expect(reason(decide(signedRequest({ ...draft() }, { path: "/ink/v1/other" })))).toBe("invalid_signature");
    expect(reason(decide(signedRequest({ ...draft() }, { recipientDid: ALICE })))).toBe("invalid_signature");
  });
  test("a nonce is recorded only after every other check passed", () => {
    const store = createMemoryNonceStore();
    const spy: NonceStore & { calls: number } = { calls: 0, addIfAbsent: (s, n) => (spy.calls++, store.addIfAbsent(s, n)) };
    const nonce = "shared-nonce-0000000001";
    // Forged transport signature, then a bad body signature: neither may burn the nonce.
    expect(reason(decide(signedRequest({ ...draft({ nonce }) }, { transportKey: mallory.secretKey }), ctx({ replay: { store: spy } })))).toBe("invalid_signature");
    expect(reason(decide(signedRequest({ ...draft({ nonce }) }, { bodyKey: mallory.secretKey }), ctx({ replay: { store: spy } })))).toBe("invalid_body_signature");
    expect(spy.calls).toBe(0);
    expect(reason(decide(valid({ nonce }), ctx({ replay: { store: spy } })))).toBe("accepted");
    expect(reason(decide(valid({ nonce }), ctx({ replay: { store: spy } })))).toBe("nonce_replay");
  });
  test("freshness is judged before replay: a stale replay reports expiry", () => {
    const store = createMemoryNonceStore();
    const raw = valid();
    expect(reason(decide(raw, ctx({ replay: { store } })))).toBe("accepted");
    expect(reason(decide(raw, ctx({ replay: { store } }), NOW + 300_001))).toBe("timestamp_expired");
  });
  test("replay scope is the canonical principal: svc:/tulpa:/ink: spellings share nonces", () => {
    const store = createMemoryNonceStore();
    const nonce = "cross-spelling-nonce-01";
    const asInk = ALICE.replace(/^svc:/, "ink:");
    expect(reason(decide(valid({ nonce }), ctx({ replay: { store } })))).toBe("accepted");
    expect(reason(decide(signedRequest({ ...draft({ nonce, from: asInk }) }), ctx({ replay: { store }, keys: resolveSenderKeys({ agentId: asInk }) })))).toBe("nonce_replay");
  });
  test("bounds are inclusive: exactly 300 s old and 30 s ahead are fresh", () => {
    expect(reason(decide(valid(), ctx(), NOW + 300_000))).toBe("accepted");
    expect(reason(decide(valid(), ctx(), NOW - 30_000))).toBe("accepted");
  });
  test("a re-signed body with a different timestamp still needs a fresh one", () => {
    const old = formatTimestamp(NOW - 3_600_000);
    expect(reason(decide(valid({ timestamp: old, createdAt: old })))).toBe("timestamp_expired");
  });
  test("header keyId is a hint, not an authority: a wrong hint falls through to the right key", () => {
    const keys: SenderKeys = { kind: "key-set", source: "card", keys: [
      { keyId: "other", publicKey: mallory.publicKey, status: "active" },
      { keyId: "sig-1", publicKey: alice.publicKey, status: "active" },
    ] };
    const d = decide(signedRequest({ ...draft() }, { keyId: "other" }), ctx({ keys }));
    expect(d.ok && d.keyId).toBe("sig-1");
  });
  test("body signature without the signature member stripped cannot be transplanted", () => {
    const raw = valid();
    const s = signBody({ ...raw.body, payload: { note: "changed" } }, alice.secretKey, WORDMARK);
    if (!s.ok) throw new Error("sign");
    // Body changed after transport signing: transport fails.
    expect(reason(decide({ bodyText: JSON.stringify(s.body), authorization: raw.authorization }))).toBe("invalid_signature");
  });
});

describe("byte-level signing texts", () => {
  test("multi-byte text before and after the signature member verifies (shared UTF-8 encoding)", () => {
    const raw = valid({ intent: "ask", payload: { question: "日本語で 😀 é?", context: "€" }, signingKeyId: "ключ-1" });
    expect(reason(decide(raw))).toBe("accepted");
  });
});
