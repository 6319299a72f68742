// Discovery queries (INK §18) signed and verified in both wordmark modes; handshake kinds (§17).
import { describe, expect, test } from "bun:test";
import { createMemoryNonceStore, signDiscoveryQuery, signTransport, verifyDiscoveryQuery, type Wordmark } from "../../src/ink/index.ts";
import { validateHandshakeMessage } from "../../src/ink/profiles.ts";
import { verifySignedHandshake } from "../../src/ink/profiles.ts";
import { ALICE, alice, mallory, NOW, TS } from "./helpers.ts";

describe("discovery queries", () => {
  for (const wordmark of ["svc", "tulpa"] as Wordmark[]) {
    test(`${wordmark}: sign → verify, then replay, audience and window`, () => {
      const q = signDiscoveryQuery({ from: ALICE, to: "did:web:dir.example", nonce: "discovery-nonce-0001", timestamp: TS, query: { tags: ["go"], limit: 5 } }, alice.secretKey, wordmark);
      expect(q.ok).toBe(true);
      if (!q.ok) return;
      expect(q.envelope.type).toBe(`network.${wordmark}.discovery_query`);
      const store = createMemoryNonceStore();
      const input = { raw: JSON.stringify(q.envelope), audience: ["did:web:dir.example"], now: NOW, publicKey: alice.publicKey, replay: store, wordmark };
      expect(verifyDiscoveryQuery(input).ok).toBe(true);
      expect(verifyDiscoveryQuery(input)).toMatchObject({ reason: "replay" });
      expect(verifyDiscoveryQuery({ ...input, replay: createMemoryNonceStore(), audience: "did:web:other" })).toMatchObject({ reason: "audience" });
      expect(verifyDiscoveryQuery({ ...input, replay: createMemoryNonceStore(), publicKey: mallory.publicKey })).toMatchObject({ reason: "signature" });
      expect(verifyDiscoveryQuery({ ...input, replay: createMemoryNonceStore(), now: NOW + 300_001 })).toMatchObject({ reason: "expired" });
      expect(verifyDiscoveryQuery({ ...input, replay: createMemoryNonceStore(), now: NOW - 30_001 })).toMatchObject({ reason: "not_yet_valid" });
      // The other mode rejects it: its ink/0.1 body-signature domain differs.
      const other: Wordmark = wordmark === "svc" ? "tulpa" : "svc";
      expect(verifyDiscoveryQuery({ ...input, replay: createMemoryNonceStore(), wordmark: other }).ok).toBe(false);
    });
  }
  test("sign refuses what verify would reject", () => {
    expect(signDiscoveryQuery({ from: ALICE, to: "d", nonce: "short", timestamp: TS, query: {} }, alice.secretKey, "svc").ok).toBe(false);
    expect(signDiscoveryQuery({ from: ALICE, to: "d", nonce: "discovery-nonce-0002", timestamp: TS, query: { limit: 101 } }, alice.secretKey, "svc").ok).toBe(false);
  });
});

describe("handshake messages", () => {
  const common = { protocol: "ink/0.1", intentRef: "intent-1", nonce: "n1", timestamp: "2026-06-16T12:00:00.000Z" };
  test("kinds come from the type spelling of the node's wordmark or network.ink", () => {
    expect(validateHandshakeMessage({ ...common, type: "network.svc.challenge", challengeType: "none" }, "svc")).toMatchObject({ ok: true, kind: "challenge" });
    expect(validateHandshakeMessage({ ...common, type: "network.ink.rejection", reason: "capacity" }, "svc")).toMatchObject({ ok: true, kind: "rejection" });
    expect(validateHandshakeMessage({ ...common, type: "network.tulpa.resolution", outcome: "expired" }, "svc")).toMatchObject({ ok: false, reason: "unsupported_intent" });
  });
  test("an embedded signature member is an ignored unknown member, never provenance", () => {
    expect(validateHandshakeMessage({ ...common, type: "network.svc.challenge", challengeType: "none", signature: "x" }, "svc").ok).toBe(true);
  });
  test("junk never throws", () => {
    for (const junk of [null, 1, "x", [], {}]) expect(validateHandshakeMessage(junk, "svc").ok).toBe(false);
  });
  test("a delivered message: schema, transport timestamp = body timestamp, then the transport signature (path and recipient bound)", () => {
    const body = { ...common, type: "network.svc.challenge", challengeType: "none" };
    const signInput = { method: "POST", path: "/ink/v1/svc:bob/challenge", recipientDid: "svc:bob", body, timestamp: common.timestamp };
    const t = signTransport(signInput, alice.secretKey);
    if (!t.ok) throw new Error(t.detail);
    const ok = (over: Partial<typeof signInput>, key = alice.publicKey) => verifySignedHandshake({ signInput: { ...signInput, ...over }, signature: t.signature, publicKey: key }, "svc");
    expect(ok({})).toMatchObject({ ok: true, kind: "challenge" });
    expect(ok({ path: "/ink/v1/svc:bob/rejection" })).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(ok({ recipientDid: "svc:carol" })).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(ok({}, mallory.publicKey)).toMatchObject({ ok: false, reason: "invalid_signature" });
    expect(ok({ timestamp: "2026-06-16T12:00:01.000Z" })).toMatchObject({ ok: false, reason: "invalid_handshake" });
    expect(ok({ body: { ...body, challengeType: "teleport" } })).toMatchObject({ ok: false, reason: "invalid_handshake" });
    expect(verifySignedHandshake({ signInput: null as never, signature: t.signature, publicKey: alice.publicKey }, "svc").ok).toBe(false);
  });
});
