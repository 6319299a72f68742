// Audit profile, witness artifacts a node consumes (AUDIT.md §6): inclusion proofs on trees built
// by RFC 6962's own definitions, inclusion receipts and audit-query responses signed here, one test
// per step and reason. The upstream vectors run in the conformance suite.
import { describe, expect, test } from "bun:test";
import { generateEd25519KeyPair } from "../../src/ink/index.ts";
import { auditLeafHash, EMPTY_TREE_ROOT, signAuditEvent, type AuditEvent } from "../../src/ink/profiles.ts";
import {
  signAuditQueryResponse,
  signInclusionReceipt,
  verifyAuditQueryResponse,
  verifyInclusionProof,
  verifyInclusionReceipt,
  type AuditQueryResponseInput,
} from "../../src/ink/profiles.ts";
import { rng } from "./helpers.ts";
import { flip, hex, LEAVES, mth, path } from "./merkle-trees.ts";

/** INK order: siblings top-down (root side first), the reverse of RFC 6962's PATH. */
const inkProof = (m: number, leaves: Uint8Array[]) => path(m, leaves).reverse().map(hex);

describe("verifyInclusionProof", () => {
  test("every leaf of every tree of 1..16 leaves verifies; at another index, or bottom-up, it does not", () => {
    for (let n = 1; n <= 16; n++) {
      const leaves = LEAVES.slice(0, n);
      const rootHash = hex(mth(leaves));
      for (let m = 0; m < n; m++) {
        const claim = { leafHash: hex(leaves[m] as Uint8Array), leafIndex: m, treeSize: n, rootHash, proof: inkProof(m, leaves) };
        expect({ n, m, r: verifyInclusionProof(claim) }).toEqual({ n, m, r: { ok: true } });
        for (let other = 0; other < n; other++) if (other !== m) expect({ n, m, other, ok: verifyInclusionProof({ ...claim, leafIndex: other }).ok }).toEqual({ n, m, other, ok: false });
        if (claim.proof.length > 1) expect(verifyInclusionProof({ ...claim, proof: [...claim.proof].reverse() }).ok).toBe(false);
      }
    }
  });

  test("any flipped, dropped or added node, another root or another size rejects", () => {
    const leaves = LEAVES.slice(0, 11);
    const claim = { leafHash: hex(leaves[6] as Uint8Array), leafIndex: 6, treeSize: 11, rootHash: hex(mth(leaves)), proof: inkProof(6, leaves) };
    claim.proof.forEach((_, i) => expect(verifyInclusionProof({ ...claim, proof: claim.proof.map((p, j) => (j === i ? flip(p, 7) : p)) }).ok).toBe(false));
    expect(verifyInclusionProof({ ...claim, proof: claim.proof.slice(1) })).toEqual({ ok: false, reason: "proof_length" });
    expect(verifyInclusionProof({ ...claim, proof: [claim.rootHash, ...claim.proof] })).toEqual({ ok: false, reason: "proof_length" });
    expect(verifyInclusionProof({ ...claim, rootHash: flip(claim.rootHash, 0) })).toEqual({ ok: false, reason: "root_mismatch" });
    // A proof binds the shape of its path, not the exact size (as in every RFC 6962 verifier: sizes
    // come from signed heads): a size with another shape rejects.
    expect(verifyInclusionProof({ ...claim, treeSize: 8 }).ok).toBe(false);
    expect(verifyInclusionProof({ ...claim, treeSize: 7 }).ok).toBe(false);
    expect(verifyInclusionProof({ ...claim, leafIndex: 11 })).toEqual({ ok: false, reason: "leaf_index_out_of_range" });
  });

  test("malformed input never throws", () => {
    const good = { leafHash: hex(LEAVES[0] as Uint8Array), leafIndex: 0, treeSize: 1, rootHash: hex(LEAVES[0] as Uint8Array), proof: [] };
    expect(verifyInclusionProof(good)).toEqual({ ok: true });
    for (const bad of [null, 1, { ...good, leafIndex: -1 }, { ...good, treeSize: 2 ** 53 }, { ...good, leafHash: "AB" }, { ...good, proof: "x" }, { ...good, proof: new Array(65).fill(good.rootHash) }, { ...good, proof: new Array(1) }]) {
      expect(verifyInclusionProof(bad)).toEqual({ ok: false, reason: "malformed_input" });
    }
  });
});

// A witness log of five audit events by agent A (whose counterparty is B).
const witness = generateEd25519KeyPair(new Uint8Array(32).fill(0x57));
const agentA = generateEd25519KeyPair(new Uint8Array(32).fill(0xa1));
const other = generateEd25519KeyPair(new Uint8Array(32).fill(0x66));
const A = "did:web:a.example";
const B = "did:web:b.example";
const EVENTS: AuditEvent[] = Array.from({ length: 5 }, (_, i) => {
  const e: AuditEvent = { id: `evt-${i}`, version: "ink-audit/1", agentId: A, sequence: i + 1, previousEventHash: null, eventType: "message.sent", timestamp: "2026-06-15T12:00:00.000Z", messageId: i < 3 ? "msg-1" : "msg-2", counterpartyId: B, signingKeyId: "a-1" };
  const s = signAuditEvent(e, agentA.secretKey);
  if (!s.ok) throw new Error("sign");
  return s.event;
});
const TREE = EVENTS.map((e) => Buffer.from(auditLeafHash(e) as string, "hex") as unknown as Uint8Array);
const ROOT = hex(mth(TREE));

describe("verifyInclusionReceipt", () => {
  const receiptFor = (i: number) => signInclusionReceipt({ eventId: `evt-${i}`, leafIndex: i, treeSize: 5, rootHash: ROOT, timestamp: "2026-06-15T12:00:01.000Z", inclusionProof: inkProof(i, TREE) }, witness.secretKey)!;
  const verify = (extra: Record<string, unknown>) => verifyInclusionReceipt({ receipt: receiptFor(1), witnessPublicKey: witness.publicKey, ...extra });

  test("each event's receipt verifies bound to the event; signature only without one", () => {
    for (let i = 0; i < 5; i++) expect(verifyInclusionReceipt({ receipt: receiptFor(i), witnessPublicKey: witness.publicKey, event: EVENTS[i] })).toMatchObject({ ok: true, proofChecked: true });
    expect(verify({})).toMatchObject({ ok: true, proofChecked: false });
    expect(verify({ eventHash: auditLeafHash(EVENTS[1]) })).toMatchObject({ ok: true, proofChecked: true });
    expect(verify({ event: EVENTS[1], laterCheckpoint: { treeSize: 9, rootHash: flip(ROOT, 0) } })).toMatchObject({ ok: true });
  });

  test("structure", () => {
    const r = receiptFor(1);
    for (const bad of [null, [], { ...r, eventId: "" }, { ...r, leafIndex: 1.5 }, { ...r, treeSize: 0 }, { ...r, leafIndex: 5 }, { ...r, rootHash: ROOT.toUpperCase() }, { ...r, timestamp: "yesterday" }, { ...r, inclusionProof: {} }, { ...r, serviceSignature: "" }]) {
      expect(verifyInclusionReceipt({ receipt: bad, witnessPublicKey: witness.publicKey })).toMatchObject({ ok: false, step: "structure" });
    }
  });

  test("signature: every committed field, the key, the encoding, a lone surrogate", () => {
    const r = receiptFor(1);
    for (const tampered of [{ eventId: "evt-9" }, { leafIndex: 2 }, { treeSize: 6 }, { rootHash: flip(ROOT, 1) }, { timestamp: "2026-06-15T12:00:02.000Z" }, { serviceSignature: "AAAA" }, { eventId: "\ud800" }]) {
      expect(verifyInclusionReceipt({ receipt: { ...r, ...tampered }, witnessPublicKey: witness.publicKey })).toMatchObject({ ok: false, step: "signature" });
    }
    expect(verifyInclusionReceipt({ receipt: r, witnessPublicKey: other.publicKey })).toMatchObject({ ok: false, step: "signature", reason: "invalid_signature" });
    // The proof is not signed: a tampered proof passes the signature and fails the walk.
    expect(verifyInclusionReceipt({ receipt: { ...r, inclusionProof: [ROOT, ...r.inclusionProof!.slice(1)] }, witnessPublicKey: witness.publicKey, event: EVENTS[1] })).toMatchObject({ ok: false, step: "proof" });
  });

  test("proof: the event is bound by id and hashed here; a wrong or unknown leaf does not walk", () => {
    expect(verify({ event: EVENTS[2] })).toMatchObject({ ok: false, step: "proof", reason: "event_id_mismatch" });
    expect(verify({ event: { ...EVENTS[1], eventType: "message.received" } })).toMatchObject({ ok: false, step: "proof", reason: "root_mismatch" });
    expect(verify({ event: null })).toMatchObject({ ok: false, step: "proof", reason: "invalid_event" });
    expect(verify({ event: { ...EVENTS[1], note: "\ud800" } })).toMatchObject({ ok: false, step: "proof", reason: "invalid_event" });
    expect(verify({ eventHash: auditLeafHash(EVENTS[2]) })).toMatchObject({ ok: false, step: "proof" });
    expect(verify({ eventHash: "nope" })).toMatchObject({ ok: false, step: "proof", reason: "invalid_event_hash" });
  });

  test("checkpoint: a rewound or forked log, or a malformed checkpoint", () => {
    expect(verify({ laterCheckpoint: { treeSize: 4, rootHash: ROOT } })).toMatchObject({ ok: false, step: "checkpoint", reason: "checkpoint_rollback" });
    expect(verify({ laterCheckpoint: { treeSize: 5, rootHash: flip(ROOT, 3) } })).toMatchObject({ ok: false, step: "checkpoint", reason: "checkpoint_fork" });
    expect(verify({ laterCheckpoint: { treeSize: 5, rootHash: ROOT } })).toMatchObject({ ok: true });
    for (const bad of [null, { treeSize: -1, rootHash: ROOT }, { treeSize: 6, rootHash: "x" }]) expect(verify({ laterCheckpoint: bad })).toMatchObject({ ok: false, step: "checkpoint", reason: "invalid_checkpoint" });
  });
});

describe("verifyAuditQueryResponse", () => {
  // The answer to A asking about msg-1: events 0..2 with their proofs in the 5-leaf log.
  const body = {
    protocol: "ink/0.1",
    type: "network.svc.audit_query_response",
    serviceDid: "did:web:witness.example",
    messageId: "msg-1",
    requester: A,
    events: EVENTS.slice(0, 3),
    proofs: [0, 1, 2].map((i) => ({ eventId: `evt-${i}`, leafIndex: i, inclusionProof: inkProof(i, TREE) })),
    treeSize: 5,
    rootHash: ROOT,
    timestamp: "2026-06-15T12:00:02.000Z",
  };
  const aKeys = (status = "active", extra: Record<string, string> = {}) => ({ kind: "key-set" as const, source: "card" as const, keys: [{ keyId: "a-1", publicKey: agentA.publicKey, status, validFrom: "2026-01-01T00:00:00.000Z", ...extra }] });
  const input = (response: unknown, over: Partial<AuditQueryResponseInput> = {}): AuditQueryResponseInput => ({
    response,
    witnessPublicKey: witness.publicKey,
    expectedMessageId: "msg-1",
    expectedRequester: A,
    agentKeys: (id) => (id === A ? aKeys() : null),
    wordmark: "svc",
    ...over,
  });
  const signed = (changes: Record<string, unknown> = {}) => signAuditQueryResponse({ ...body, ...changes } as never, witness.secretKey)!;

  test("a signed, in-scope answer verifies, in either spelling; the counterparty may ask too", () => {
    expect(verifyAuditQueryResponse(input(signed()))).toMatchObject({ ok: true, events: EVENTS.slice(0, 3) });
    expect(verifyAuditQueryResponse(input(signed({ type: "network.ink.audit_query_response" })))).toMatchObject({ ok: true });
    expect(verifyAuditQueryResponse(input(signed({ requester: B }), { expectedRequester: B }))).toMatchObject({ ok: true });
    const empty = signed({ events: [], proofs: [], treeSize: 0, rootHash: EMPTY_TREE_ROOT });
    expect(verifyAuditQueryResponse(input(empty))).toMatchObject({ ok: true, events: [] });
  });

  test("one rejection per reason", () => {
    const cases: Array<[unknown, Partial<AuditQueryResponseInput>, string]> = [
      [signed({ type: "network.tulpa.audit_query_response" }), {}, "invalid_response"],
      [signed({ protocol: "ink/0.2" }), {}, "invalid_response"],
      [signed({ proofs: [{ ...body.proofs[0], leafIndex: 5 }, ...body.proofs.slice(1)] }), {}, "invalid_response"],
      [signed(), { expectedMessageId: "msg-2" }, "message_id_mismatch"],
      [signed(), { expectedRequester: B }, "requester_mismatch"],
      [signed(), { expectedServiceDid: "did:web:other-witness.example" }, "service_did_mismatch"],
      [{ ...signed(), type: "network.ink.audit_query_response" }, {}, "invalid_signature"],
      [{ ...signed(), rootHash: flip(ROOT, 9) }, {}, "invalid_signature"],
      [signed(), { witnessPublicKey: other.publicKey }, "invalid_signature"],
      [signed({ proofs: [], treeSize: 0, rootHash: EMPTY_TREE_ROOT }), {}, "empty_tree_mismatch"],
      [signed({ events: [], proofs: [], treeSize: 0, rootHash: ROOT }), {}, "empty_tree_mismatch"],
      [signed({ events: [...EVENTS.slice(0, 3), EVENTS[3]], proofs: [...body.proofs, { eventId: "evt-3", leafIndex: 3, inclusionProof: inkProof(3, TREE) }] }), {}, "event_out_of_scope"],
      [signed({ requester: "did:web:c.example" }), { expectedRequester: "did:web:c.example" }, "event_out_of_scope"],
      [signed({ proofs: body.proofs.slice(0, 2) }), {}, "proof_mapping"],
      [signed({ proofs: [body.proofs[0], body.proofs[0], body.proofs[2]] }), {}, "proof_mapping"],
      [signed({ events: [EVENTS[0], EVENTS[0], EVENTS[2]] }), {}, "proof_mapping"],
      [signed({ proofs: [...body.proofs.slice(0, 2), { ...body.proofs[2], eventId: "evt-7" }] }), {}, "proof_mapping"],
      [signed({ proofs: [...body.proofs.slice(0, 2), { ...body.proofs[2], inclusionProof: inkProof(1, TREE) }] }), {}, "proof_invalid"],
      [signed(), { agentKeys: () => null }, "agent_signature_invalid"],
      [signed(), { agentKeys: () => ({ kind: "bootstrap", publicKey: other.publicKey }) }, "agent_signature_invalid"],
      [signed(), { agentKeys: () => aKeys("revoked") }, "agent_signature_invalid"],
      [signed(), { laterCheckpoint: { treeSize: 4, rootHash: ROOT } }, "checkpoint_rollback"],
      [signed(), { laterCheckpoint: { treeSize: 5, rootHash: flip(ROOT, 2) } }, "checkpoint_fork"],
    ];
    for (const [response, over, reason] of cases) expect({ reason, r: verifyAuditQueryResponse(input(response, over)) }).toMatchObject({ reason, r: { ok: false, reason } });
  });

  test("agent keys are rotation-aware at the event's timestamp: retired inside its window verifies", () => {
    expect(verifyAuditQueryResponse(input(signed(), { agentKeys: () => aKeys("retired", { validUntil: "2026-12-31T00:00:00.000Z" }) })).ok).toBe(true);
    expect(verifyAuditQueryResponse(input(signed(), { agentKeys: () => aKeys("retired", { validUntil: "2026-03-01T00:00:00.000Z" }) })).ok).toBe(false);
  });
});

describe("fuzz (seeded, bounded): receipts and responses never throw, and a changed signed field never verifies", () => {
  const VALUES: unknown[] = [null, 0, -1, 1.5, 2 ** 53, "", "x", "\ud800", [], {}, [ROOT], ROOT, true, "evt-1", "msg-1"];

  function mutate(r: ReturnType<typeof rng>, value: Record<string, unknown>): Record<string, unknown> {
    const copy = structuredClone(value);
    let target: Record<string, unknown> = copy;
    for (let depth = r.int(3); depth > 0; depth--) {
      const keys = Object.keys(target);
      const child = keys.length ? target[r.pick(keys)] : undefined;
      if (child === null || typeof child !== "object") break;
      target = child as Record<string, unknown>;
    }
    const keys = Object.keys(target);
    const k = keys.length && r.int(4) > 0 ? r.pick(keys) : "extra";
    if (r.int(3) === 0) delete target[k];
    else target[k] = structuredClone(r.pick(VALUES));
    return copy;
  }

  test("1000 mutations of each", () => {
    const r = rng(0x6963);
    const receipt = signInclusionReceipt({ eventId: "evt-1", leafIndex: 1, treeSize: 5, rootHash: ROOT, timestamp: "2026-06-15T12:00:01.000Z", inclusionProof: inkProof(1, TREE) }, witness.secretKey)!;
    const response = signAuditQueryResponse({ protocol: "ink/0.1", type: "network.svc.audit_query_response", serviceDid: "did:web:w.example", messageId: "msg-1", requester: A, events: EVENTS.slice(0, 1), proofs: [{ eventId: "evt-0", leafIndex: 0, inclusionProof: inkProof(0, TREE) }], treeSize: 5, rootHash: ROOT, timestamp: "2026-06-15T12:00:02.000Z" }, witness.secretKey)!;
    // Only the five committed fields are signed; other members of a receipt are tolerated.
    const committed = (x: Record<string, unknown>) => JSON.stringify(["eventId", "leafIndex", "treeSize", "rootHash", "timestamp"].map((k) => [k in x, x[k]]));
    for (let i = 0; i < 1000; i++) {
      const m = mutate(r, receipt as unknown as Record<string, unknown>);
      const res = verifyInclusionReceipt({ receipt: m, witnessPublicKey: witness.publicKey, ...(r.int(2) ? { event: r.pick([EVENTS[1], null, {}]) } : {}), ...(r.int(2) ? { laterCheckpoint: r.pick(VALUES) } : {}) });
      expect(typeof res.ok).toBe("boolean");
      if (m.serviceSignature === receipt.serviceSignature && committed(m) !== committed(receipt as never)) expect(res.ok).toBe(false);
      const q = mutate(r, response as unknown as Record<string, unknown>);
      const qr = verifyAuditQueryResponse({ response: q, witnessPublicKey: witness.publicKey, expectedMessageId: "msg-1", expectedRequester: A, agentKeys: () => r.pick([null, { kind: "bootstrap", publicKey: agentA.publicKey }]), wordmark: "svc" });
      expect(typeof qr.ok).toBe("boolean");
      if (q.serviceSignature === response.serviceSignature && JSON.stringify(q) !== JSON.stringify(response)) expect(qr.ok).toBe(false);
    }
  }, 30_000); // heavy (thousands of requests, mutations or scrypt runs): slow on a loaded machine
});
