// The inbound intent's `message.received` audit event signed on the crypto batcher's worker
// (docs/decisions/inbound-performance.md, "audit signature on the batcher"): two nodes in the same
// state, one with a worker and one without (today's synchronous path), get the same intents, many in
// one turn, with a replay, a retried delivery and a rate-limited one among them: the same answers,
// the same events (the id aside: the batched node draws it before the message's), each signed
// exactly as the in-place signer signs it, in a +1 chain that verifies, one event per stored message.
import { afterAll, afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { createKeyVault } from "../../src/adapters/key-vault.ts";
import { createCryptoBatcher, type CryptoBatcher } from "../../src/adapters/crypto-batch.ts";
import { connections, ownerPolicy } from "../../src/db/schema/index.ts";
import { transaction } from "../../src/db/client.ts";
import { activeSigningKey } from "../../src/domain/agent/active-signing-key.ts";
import { recordSignedInkEvent, signInkEventAhead } from "../../src/domain/internal/ink-events-ahead.ts";
import { rotateSigningKey } from "../../src/domain/identity/rotate-signing-key.ts";
import { signAuditEvent, verifyAuditEventChain, type AuditEvent } from "../../src/ink/audit.ts";
import { bootNetworkPair, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";
import { personaKey } from "../helpers/personas.ts";

const pairs: NetworkNode[][] = [];
const batchers: CryptoBatcher[] = [];
afterEach(async () => {
  for (const p of pairs.splice(0)) await stopNodes(...p);
});
afterAll(async () => {
  for (const b of batchers) await b.close();
});

// The same requests for both nodes (their recipient, Alice's agent, path and clock are the same).
const signed = new Map<string, ReturnType<typeof signedIntent>>();

async function run(crypto: CryptoBatcher, perHour = 1000) {
  batchers.push(crypto);
  const { alice, bob } = await bootNetworkPair({ alice: { crypto } });
  pairs.push([alice, bob]);
  const now = alice.clock.now();
  alice.db.insert(connections).values({ id: "con_bob", principal: `key:${bob.agentId!.slice(4)}`, agentId: bob.agentId, cardUrl: bob.cardUrl, status: "connected", initiatedBy: "us", createdAt: now, updatedAt: now }).run();
  alice.db.insert(ownerPolicy).values({ id: 1, maxAutonomyLevel: "draft_only", maxInboundRate: perHour, acceptForeignAgents: true, updatedAt: 0 }).run();
  const ask = (i: number, extra: { id?: string } = {}) => {
    const key = `${perHour}-${i}`;
    if (!signed.has(key)) signed.set(key, signedIntent("bob", alice, { intent: "ask", payload: { question: `q${i}` }, ...extra }));
    return signed.get(key)!;
  };
  const answers: string[] = [];
  const post = async (reqs: ReturnType<typeof ask>[]) => {
    for (const r of await Promise.all(reqs.map((r) => postIntent(alice, r)))) answers.push(`${r.status} ${r.status >= 400 ? ((await r.json()) as { error: string }).error : ""}`);
  };
  await post([ask(0)]); // the card is fetched once
  const replayed = ask(1);
  // Forged: Bob's intent with a transport signature of other bytes. Its event is built before the
  // verdict (with a worker) and never stored: the next of the chain goes on the real head.
  const forged = (i: number) => {
    const r = ask(i);
    const sig = r.authorization.slice("INK-Ed25519 ".length, "INK-Ed25519 ".length + 86);
    return { ...r, authorization: r.authorization.replace(sig, ask(i + 100).authorization.slice("INK-Ed25519 ".length, "INK-Ed25519 ".length + 86)) };
  };
  await post([replayed, ...Array.from({ length: 6 }, (_, i) => ask(2 + i)), forged(8), ...Array.from({ length: 6 }, (_, i) => ask(9 + i)), ask(15, { id: "retried-1" }), ask(16, { id: "retried-1" }), forged(17), ask(18)]);
  await post([ask(19), replayed, ask(20)]);
  // The same request twice in one turn: which copy wins is a race (on either path), the chain stays +1.
  const twice = ask(21);
  const [a, b] = await Promise.all([postIntent(alice, twice), postIntent(alice, twice), postIntent(alice, ask(22))]);
  answers.push([a!.status, b!.status].sort().join(" "));
  const events = alice.db.$client
    .query<{ eventJson: string }, [string]>("SELECT event_json AS eventJson FROM audit_events WHERE chain_id = ? ORDER BY sequence")
    .all(`ink:key:${bob.agentId!.slice(4)}`)
    .map((r) => JSON.parse(r.eventJson) as AuditEvent);
  const stored = alice.db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM messages WHERE direction = 'in'").get()!.n;
  return { answers, events, stored, key: activeSigningKey(alice.db, alice.vault)! };
}

const withoutId = ({ id: _id, previousEventHash: _p, agentSignature: _s, ...rest }: AuditEvent) => rest;

for (const perHour of [1000, 10]) {
  test(`signed on a worker: the same answers and events as in place, each signed as the in-place signer does, a +1 chain (${perHour} intents/hour allowed)`, async () => {
    const pooled = createCryptoBatcher({ workers: 1 });
    const batched = await run(pooled, perHour);
    const inPlace = await run(createCryptoBatcher({ workers: 0 }), perHour);
    expect(batched.answers).toEqual(inPlace.answers);
    expect(new Set(batched.answers)).toContain("409 nonce_replay");
    expect(new Set(batched.answers)).toContain("401 signature_verification_failed");
    if (perHour === 10) expect(new Set(batched.answers)).toContain("429 rate_limited");
    expect(batched.stored).toBe(inPlace.stored);
    expect(batched.events.map(withoutId)).toEqual(inPlace.events.map(withoutId));
    // one event per stored message, sequences 1..n, each link the hash of the one before
    expect(batched.events.map((e) => e.sequence)).toEqual(Array.from({ length: batched.stored }, (_, i) => i + 1));
    expect(verifyAuditEventChain(batched.events)).toMatchObject({ ok: true });
    for (const event of batched.events) {
      const { agentSignature, ...unsigned } = event;
      const resigned = signAuditEvent(unsigned as AuditEvent, batched.key.privateKey);
      expect(resigned.ok && resigned.event.agentSignature).toBe(agentSignature!);
    }
    const { computedHere, crashes } = pooled.stats();
    expect({ computedHere, crashes }).toEqual({ computedHere: 0, crashes: 0 });
  });
}

test("an intent alone in its turn: its two verifies and its audit event's signature go to the worker in one message", async () => {
  const batcher = createCryptoBatcher({ workers: 1 });
  batchers.push(batcher);
  let signs = 0;
  const crypto = { size: batcher.size, verifyAll: batcher.verifyAll, sign: (message: Uint8Array, key: Uint8Array) => (signs++, batcher.sign(message, key)), stats: batcher.stats };
  const { alice, bob } = await bootNetworkPair({ alice: { crypto } });
  pairs.push([alice, bob]);
  const now = alice.clock.now();
  alice.db.insert(connections).values({ id: "con_bob", principal: `key:${bob.agentId!.slice(4)}`, agentId: bob.agentId, cardUrl: bob.cardUrl, status: "connected", initiatedBy: "us", createdAt: now, updatedAt: now }).run();
  expect((await postIntent(alice, signedIntent("bob", alice, { intent: "ask", payload: { question: "card?" } }))).status).toBe(202); // the card is fetched
  const before = { messages: batcher.stats().messages, signs };
  expect((await postIntent(alice, signedIntent("bob", alice, { intent: "ask", payload: { question: "one?" } }))).status).toBe(202);
  expect(batcher.stats()).toMatchObject({ messages: before.messages + 1, computedHere: 0 });
  expect(signs).toBe(before.signs + 1); // the audit event's, on the batcher
  expect(alice.db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM audit_events WHERE event_json LIKE '%message.received%'").get()!.n).toBe(2);
});

test("a rotation between signing ahead and storing: the event is recorded in place with the key active now, on the real head", async () => {
  const crypto = createCryptoBatcher({ workers: 1 });
  batchers.push(crypto);
  const { alice, bob } = await bootNetworkPair({ alice: { crypto } });
  pairs.push([alice, bob]);
  const ctx = alice.ctx({ kind: "owner", subject: "owner" });
  const entry = (n: number) => ({ eventType: "message.received", messageId: `m${n}`, correlationId: `t${n}`, counterpartyId: bob.agentId! });
  const kept = await signInkEventAhead(ctx, "key:peer", entry(1));
  const stale = await signInkEventAhead(ctx, "key:peer", entry(2)); // built on the first
  transaction(alice.db, (tx) => recordSignedInkEvent(tx, ctx, kept!));
  const before = activeSigningKey(alice.db, alice.vault)!.keyId;
  rotateSigningKey(ctx, { generateKey: (role, keyId, now) => ({ ...personaKey("alice", role, 1, now), keyId }) });
  const after = activeSigningKey(alice.db, alice.vault)!;
  expect(after.keyId).not.toBe(before);
  transaction(alice.db, (tx) => recordSignedInkEvent(tx, ctx, stale!));
  const events = alice.db.$client
    .query<{ eventJson: string }, []>("SELECT event_json AS eventJson FROM audit_events WHERE chain_id = 'ink:key:peer' ORDER BY sequence")
    .all()
    .map((r) => JSON.parse(r.eventJson) as AuditEvent);
  expect(events.map((e) => [e.sequence, e.messageId, e.signingKeyId])).toEqual([
    [1, "m1", before],
    [2, "m2", after.keyId],
  ]);
  expect(verifyAuditEventChain(events)).toMatchObject({ ok: true });
  const { agentSignature, ...unsigned } = events[1]!;
  const resigned = signAuditEvent(unsigned as AuditEvent, after.privateKey);
  expect(resigned.ok && resigned.event.agentSignature).toBe(agentSignature!);
});

test("over HTTP, a rotation after the authentication read the signing key (its read transaction) and before the event is stored: recorded with the key active now", async () => {
  const batcher = createCryptoBatcher({ workers: 1 });
  batchers.push(batcher);
  let rotateOnSign: (() => void) | null = null;
  const crypto = { size: batcher.size, verifyAll: batcher.verifyAll, sign: (m: Uint8Array, k: Uint8Array) => { const r = rotateOnSign; rotateOnSign = null; r?.(); return batcher.sign(m, k); }, stats: batcher.stats };
  const { alice, bob } = await bootNetworkPair({ alice: { crypto } });
  pairs.push([alice, bob]);
  const now = alice.clock.now();
  alice.db.insert(connections).values({ id: "con_bob", principal: `key:${bob.agentId!.slice(4)}`, agentId: bob.agentId, cardUrl: bob.cardUrl, status: "connected", initiatedBy: "us", createdAt: now, updatedAt: now }).run();
  expect((await postIntent(alice, signedIntent("bob", alice, { intent: "ask", payload: { question: "one" } }))).status).toBe(202);
  const before = activeSigningKey(alice.db, alice.vault)!.keyId;
  const ctx = alice.ctx({ kind: "owner", subject: "owner" });
  rotateOnSign = () => rotateSigningKey(ctx, { generateKey: (role, keyId, t) => ({ ...personaKey("alice", role, 1, t), keyId }) });
  expect((await postIntent(alice, signedIntent("bob", alice, { intent: "ask", payload: { question: "two" } }))).status).toBe(202);
  expect(rotateOnSign).toBeNull();
  const after = activeSigningKey(alice.db, alice.vault)!;
  expect(after.keyId).not.toBe(before);
  const events = alice.db.$client.query<{ eventJson: string }, []>("SELECT event_json AS eventJson FROM audit_events WHERE chain_id LIKE 'ink:%' ORDER BY sequence").all().map((r) => JSON.parse(r.eventJson) as AuditEvent);
  expect(events.map((e) => e.signingKeyId)).toEqual([before, after.keyId]);
  expect(verifyAuditEventChain(events)).toMatchObject({ ok: true });
  const { agentSignature, ...unsigned } = events[1]!;
  const resigned = signAuditEvent(unsigned as AuditEvent, after.privateKey);
  expect(resigned.ok && resigned.event.agentSignature).toBe(agentSignature!);
});

test("a key file that no longer reads and an active key this process has not loaded: forged intents are still refused 401, the signed-ahead event's key read fails nothing", async () => {
  const crypto = createCryptoBatcher({ workers: 1 });
  batchers.push(crypto);
  const { alice, bob } = await bootNetworkPair({ alice: { crypto } });
  pairs.push([alice, bob]);
  const now = alice.clock.now();
  alice.db.insert(connections).values({ id: "con_bob", principal: `key:${bob.agentId!.slice(4)}`, agentId: bob.agentId, cardUrl: bob.cardUrl, status: "connected", initiatedBy: "us", createdAt: now, updatedAt: now }).run();
  expect((await postIntent(alice, signedIntent("bob", alice, { intent: "ask", payload: { question: "card?" } }))).status).toBe(202); // the card is fetched
  // Another process (`kith keys rotate`) rotates with its own vault: this node's vault has not loaded
  // the new active key, so reading it re-reads the key file, which then no longer parses.
  const before = activeSigningKey(alice.db, alice.vault)!.keyId;
  const other = { ...alice.ctx({ kind: "owner", subject: "owner" }), vault: createKeyVault(alice.vault.path, null) };
  rotateSigningKey(other, { generateKey: (role, keyId, t) => ({ ...personaKey("alice", role, 1, t), keyId }) });
  expect(alice.vault.find(before)).not.toBeNull();
  writeFileSync(alice.vault.path, "{ not a key file");
  expect(() => activeSigningKey(alice.db, alice.vault)).toThrow();
  const forged = (question: string) => {
    const r = signedIntent("bob", alice, { intent: "ask", payload: { question } });
    const alt = signedIntent("bob", alice, { intent: "ask", payload: { question: `${question}, other bytes` } });
    const sig = (a: string) => a.slice("INK-Ed25519 ".length, "INK-Ed25519 ".length + 86);
    return { ...r, authorization: r.authorization.replace(sig(r.authorization), sig(alt.authorization)) };
  };
  // Alone, and several in one turn (one worker batch).
  const answers = [await postIntent(alice, forged("one")), ...(await Promise.all(["two", "three", "four"].map((q) => postIntent(alice, forged(q)))))];
  for (const r of answers) expect({ status: r.status, error: ((await r.json()) as { error: string }).error }).toEqual({ status: 401, error: "signature_verification_failed" });
  expect(alice.db.$client.query<{ n: number }, []>("SELECT count(*) AS n FROM messages WHERE direction = 'in'").get()!.n).toBe(1);
});
