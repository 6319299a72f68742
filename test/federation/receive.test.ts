import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { connections, messages, ownerPolicy } from "../../src/db/schema/index.ts";
import { listPending } from "../../src/domain/approvals/list-pending.ts";
import { listInbox } from "../../src/domain/inbox/list-inbox.ts";
import { formatTimestamp } from "../../src/ink/index.ts";
import { bootNetworkPair, stopNodes, TEST_REMOTE_HEADER, type NetworkNode } from "../helpers/boot.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";
import { json } from "../helpers/process.ts";

let alice: NetworkNode;
let bob: NetworkNode;
const owner = { kind: "owner", subject: "owner" } as const;
const request = { method: "discovery", context: "hello", profileSnapshot: { headline: "Bob", skills: [], interests: [], openTo: [] } };

beforeEach(async () => void ({ alice, bob } = await bootNetworkPair()));
afterEach(() => stopNodes(alice, bob));

/** Alice's node knows Bob: his card URL is on record and they are connected. */
function connectBob(status = "connected") {
  const now = alice.clock.now();
  alice.db
    .insert(connections)
    .values({ id: "con_bob", principal: `key:${bob.agentId!.slice(4)}`, agentId: bob.agentId, cardUrl: bob.cardUrl, status: status as "connected", initiatedBy: "us", createdAt: now, updatedAt: now })
    .run();
}
function setPolicy(values: Partial<typeof ownerPolicy.$inferInsert>) {
  alice.db
    .insert(ownerPolicy)
    .values({ id: 1, maxAutonomyLevel: "draft_only", maxInboundRate: 10, acceptForeignAgents: true, updatedAt: 0, ...values })
    .onConflictDoUpdate({ target: ownerPolicy.id, set: values })
    .run();
}
async function expectRejected(res: Response, status: number, code: string) {
  const body = await json(res);
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(body).toMatchObject({ error: code, protocol: "ink/0.1" });
  expect(typeof body.message).toBe("string");
}
const stored = () => alice.db.select().from(messages).all().filter((m) => m.direction === "in");

describe("INK receiver: acceptance", () => {
  test("a stranger's connection_request (genesis key, first contact) is held for the owner: 202 with the pending action id", async () => {
    const res = await postIntent(alice, signedIntent("bob", alice, { intent: "connection_request", payload: request }));
    expect(res.status).toBe(202);
    const body = await json(res);
    expect(body).toMatchObject({ accepted: true, status: "pending_approval" });
    expect(listPending(alice.ctx(owner), {}).items[0]!.id).toBe(body.pendingActionId);
  });

  test("with maxAutonomyLevel full the same intent from a connection is stored: 200", async () => {
    connectBob();
    setPolicy({ maxAutonomyLevel: "full" });
    const res = await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: { note: "hi" } }));
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ accepted: true, status: "stored" });
    expect(stored()[0]).toMatchObject({ intent: "ping", status: "unread" });
  });

  test("a connection's key set comes from its card (fetched over TLS): a rotated sender still verifies; a trusted DID bypasses the hold", async () => {
    connectBob();
    setPolicy({ trustedDidsJson: JSON.stringify([bob.agentId]) });
    const res = await postIntent(alice, signedIntent("bob", alice, { intent: "ask", payload: { question: "?" } }));
    expect(res.status).toBe(200);
  });

  test("a retried delivery (same id, new nonce and signature) answers the same success and stores one row", async () => {
    connectBob();
    const first = signedIntent("bob", alice, { intent: "ask", payload: { question: "once?" }, id: "fixed-id-1", correlationId: "thread-fixed" });
    const retry = signedIntent("bob", alice, { intent: "ask", payload: { question: "once?" }, id: "fixed-id-1", correlationId: "thread-fixed" });
    const a = await postIntent(alice, first);
    const b = await postIntent(alice, retry);
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect((await json(b)).pendingActionId).toBe((await json(a)).pendingActionId);
    expect(stored()).toHaveLength(1);
  });

  test("a sealed confidential intent is decrypted and stored; retract hides its target", async () => {
    connectBob();
    const meeting = signedIntent("bob", alice, { intent: "schedule_meeting", payload: { proposedTimes: ["2026-07-01T09:00:00Z"], topic: "Plan", format: "phone", urgency: "low" } });
    expect(meeting.envelope.type).toBe("network.svc.encrypted");
    expect((await postIntent(alice, meeting)).status).toBe(202);
    expect(stored()[0]).toMatchObject({ intent: "schedule_meeting", sealed: true });
    const envelopeId = stored()[0]!.envelopeId;
    const retract = await postIntent(alice, signedIntent("bob", alice, { intent: "retract", payload: { targetMessageId: envelopeId } }));
    expect(retract.status).toBe(200);
    const inbox = listInbox(alice.ctx(owner), {}).items;
    expect(inbox.map((m) => m.intent)).toEqual(["retract"]);
    expect(listPending(alice.ctx(owner), {}).items).toHaveLength(0);
  });

  test("/agents/:agentId/inbox accepts an envelope signed over either the card endpoint path or its own path", async () => {
    connectBob();
    const signedForEndpoint = signedIntent("bob", alice, { intent: "ping", payload: {} });
    expect((await postIntent(alice, signedForEndpoint, { path: `/agents/${alice.agentId}/inbox` })).status).toBe(202);
  });
});

describe("INK receiver: one test per rejection", () => {
  test("404 for an agent id that is not this node's", async () => {
    const req = signedIntent("bob", alice, { intent: "connection_request", payload: request });
    await expectRejected(await postIntent(alice, req, { path: `/ink/v1/${encodeURIComponent(bob.agentId!)}/intent` }), 404, "unknown_recipient");
  });

  test("415 for a body that is not application/json", async () => {
    const req = signedIntent("bob", alice, { intent: "connection_request", payload: request });
    await expectRejected(await postIntent(alice, req, { headers: { "content-type": "text/plain" } }), 415, "unsupported_media_type");
  });

  test("413 for a body over 64 KiB (declared or streamed)", async () => {
    const req = signedIntent("bob", alice, { intent: "connection_request", payload: request });
    await expectRejected(await postIntent(alice, req, { body: `{"pad":"${"x".repeat(70_000)}"}` }), 413, "body_too_large");
  });

  test("400 for each raw-body gate failure, before any signature work", async () => {
    const req = signedIntent("bob", alice, { intent: "connection_request", payload: request });
    const cases: Array<[string | Uint8Array, string]> = [
      [new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), "utf8"],
      ['{"a":"\\ud800"}', "surrogate"],
      ['{"a":1e309}', "number-range"],
      ['{"\\u0061":1}', "member-name-escape"],
      ["{not json", "invalid_json"],
    ];
    for (const [body, reason] of cases) {
      const res = await alice.request(`/ink/v1/${alice.agentId}/intent`, { method: "POST", headers: { "content-type": "application/json", authorization: req.authorization }, body });
      expect(res.status).toBe(400);
      expect((await json(res)).code).toBe(reason);
    }
  });

  test("400 for a malformed envelope, an unknown protocol version, an unsupported intent, plaintext confidential intent, bad payload, wrong recipient", async () => {
    const tamper = (mutate: (e: Record<string, unknown>) => void) => {
      const req = signedIntent("bob", alice, { intent: "ping", payload: {} });
      const e = JSON.parse(req.body);
      mutate(e);
      return postIntent(alice, req, { body: JSON.stringify(e) });
    };
    await expectRejected(await tamper((e) => delete e.correlationId), 400, "invalid_envelope");
    await expectRejected(await tamper((e) => (e.extra = 1)), 400, "invalid_envelope");
    await expectRejected(await tamper((e) => (e.protocol = "ink/0.3")), 400, "unsupported_protocol_version");
    await expectRejected(await tamper((e) => (e.intent = "com.example.custom")), 400, "unsupported_intent");
    await expectRejected(await tamper((e) => ((e.intent = "schedule_meeting"), (e.payload = { proposedTimes: ["2026-01-01T00:00:00Z"], topic: "x", format: "video", urgency: "low" }))), 400, "encryption_required");
    await expectRejected(await tamper((e) => (e.payload = { note: 5 })), 400, "invalid_payload");
    await expectRejected(await tamper((e) => (e.to = bob.agentId)), 400, "recipient_mismatch");
  });

  test("401 for a missing or malformed Authorization header", async () => {
    const req = signedIntent("bob", alice, { intent: "connection_request", payload: request });
    await expectRejected(await postIntent(alice, { ...req, authorization: "" }), 401, "missing_authorization");
    await expectRejected(await postIntent(alice, { ...req, authorization: `${req.authorization} extra=1` }), 401, "invalid_auth_scheme");
    await expectRejected(await postIntent(alice, { ...req, authorization: req.authorization.replace("INK-Ed25519 ", "INK-Ed25519  ") }), 401, "invalid_auth_scheme");
  });

  test("401 outside the freshness window, or without a valid nonce", async () => {
    const now = alice.clock.now();
    await expectRejected(await postIntent(alice, signedIntent("bob", alice, { intent: "connection_request", payload: request }, { now: now - 300_001 })), 401, "timestamp_expired");
    await expectRejected(await postIntent(alice, signedIntent("bob", alice, { intent: "connection_request", payload: request }, { now: now + 30_001 })), 401, "timestamp_too_far_future");
    const shortNonce = signedIntent("bob", alice, { intent: "connection_request", payload: request });
    const e = JSON.parse(shortNonce.body);
    e.nonce = "short";
    await expectRejected(await postIntent(alice, shortNonce, { body: JSON.stringify(e) }), 401, "missing_nonce");
  });

  test("401 when the transport signature does not verify (tampered body) or the body signature is not the sender's", async () => {
    const req = signedIntent("bob", alice, { intent: "connection_request", payload: request });
    await expectRejected(await postIntent(alice, req, { body: req.body.replace('"hello"', '"hellO"') }), 401, "invalid_signature");
    // Body signed by carol's key, transport by bob's genesis key: the body signature fails.
    const carol = signedIntent("carol", alice, { intent: "connection_request", payload: request });
    const bobReq = signedIntent("bob", alice, { intent: "connection_request", payload: request });
    const mixed = JSON.parse(bobReq.body);
    mixed.signature = JSON.parse(carol.body).signature;
    const { signTransport } = await import("../../src/ink/index.ts");
    const { personaKey } = await import("../helpers/personas.ts");
    const resigned = signTransport({ method: "POST", path: bobReq.path, recipientDid: alice.agentId!, body: mixed, timestamp: mixed.timestamp }, personaKey("bob", "signing").privateKey);
    if (!resigned.ok) throw new Error("sign");
    await expectRejected(await postIntent(alice, { ...bobReq, authorization: resigned.authorization }, { body: JSON.stringify(mixed) }), 401, "invalid_body_signature");
  });

  test("401 for a key the sender's card does not list (authority rule: no fallback to the genesis key)", async () => {
    connectBob();
    // Bob's card lists only his genesis key; a message signed with another key of "bob" fails.
    await expectRejected(await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {} }, { generation: 1 })), 401, "signature_verification_failed");
  });

  test("a key-derived sender without a card: its genesis key verifies any intent, plain or sealed; the connection decides (INK §6.3, §15)", async () => {
    setPolicy({ maxAutonomyLevel: "full" });
    alice.db.insert(connections).values({ id: "c1", principal: `key:${bob.agentId!.slice(4)}`, agentId: bob.agentId, status: "connected", initiatedBy: "us", createdAt: 0, updatedAt: 0 }).run();
    expect((await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {} }))).status).toBe(200);
    const meeting = { proposedTimes: ["2026-12-01T10:00:00Z"], topic: "Kickoff", format: "video", urgency: "normal" };
    const sealed = signedIntent("bob", alice, { intent: "schedule_meeting", payload: meeting });
    expect(JSON.parse(sealed.body).type).toBe("network.svc.encrypted");
    expect((await postIntent(alice, sealed)).status).toBe(200);
    expect(stored().map((m) => [m.intent, m.keyId, m.sealed])).toEqual([["ping", "bootstrap", false], ["schedule_meeting", "bootstrap", true]]);
  });

  test("409 for a replayed request (same nonce) and for a reused message id with other content", async () => {
    connectBob();
    const req = signedIntent("bob", alice, { intent: "ping", payload: { note: "a" }, id: "dup-1", correlationId: "t-dup" });
    expect((await postIntent(alice, req)).status).toBe(202);
    await expectRejected(await postIntent(alice, req), 409, "nonce_replay");
    await expectRejected(await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: { note: "b" }, id: "dup-1", correlationId: "t-dup" })), 409, "duplicate_message_id");
    expect(stored()).toHaveLength(1);
  });

  test("403 for a stranger's intent other than connection_request, carded or not", async () => {
    await expectRejected(await postIntent(alice, signedIntent("bob", alice, { intent: "ask", payload: { question: "hi" } })), 403, "not_connected");
    connectBob("contact");
    await expectRejected(await postIntent(alice, signedIntent("bob", alice, { intent: "ask", payload: { question: "hi" } })), 403, "not_connected");
  });

  test("403 for a blocked sender and for the foreign-sender policy", async () => {
    setPolicy({ acceptForeignAgents: false });
    await expectRejected(await postIntent(alice, signedIntent("bob", alice, { intent: "connection_request", payload: request })), 403, "block_recipient_not_accepting_foreign");
    setPolicy({ acceptForeignAgents: true, allowedDidsJson: JSON.stringify(["did:web:friend.example"]) });
    await expectRejected(await postIntent(alice, signedIntent("bob", alice, { intent: "connection_request", payload: request })), 403, "block_did_not_in_user_allow_list");
    setPolicy({ allowedDidsJson: "[]", blockedDidsJson: JSON.stringify([bob.agentId]) });
    await expectRejected(await postIntent(alice, signedIntent("bob", alice, { intent: "connection_request", payload: request })), 403, "sender_blocked");
    setPolicy({ blockedDidsJson: "[]" });
    connectBob("blocked");
    await expectRejected(await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {} })), 403, "sender_blocked");
  });

  test("400 for a message whose expiresAt has passed", async () => {
    connectBob();
    const past = formatTimestamp(alice.clock.now() - 1000);
    await expectRejected(await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {}, expiresAt: past })), 400, "message_expired");
  });

  test("429 with Retry-After: 60 per minute per IP on /agents/:agentId/inbox", async () => {
    const path = `/agents/${alice.agentId}/inbox`;
    const headers = { [TEST_REMOTE_HEADER]: "198.51.100.77" };
    for (let i = 0; i < 60; i++) {
      const res = await postIntent(alice, { body: "{}", authorization: "", envelope: {}, path }, { path, headers });
      expect(res.status).not.toBe(429);
    }
    const limited = await postIntent(alice, { body: "{}", authorization: "", envelope: {}, path }, { path, headers });
    await expectRejected(limited, 429, "rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const otherIp = await postIntent(alice, { body: "{}", authorization: "", envelope: {}, path }, { path, headers: { [TEST_REMOTE_HEADER]: "198.51.100.78" } });
    expect(otherIp.status).not.toBe(429);
  });

  test("429 per sender principal on the intent endpoint, whatever the IP", async () => {
    connectBob();
    let limited: Response | null = null;
    for (let i = 0; i < 40 && !limited; i++) {
      const res = await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {} }), { headers: { [TEST_REMOTE_HEADER]: `203.0.113.${i}` } });
      if (res.status === 429) limited = res;
    }
    expect(limited).not.toBeNull();
    await expectRejected(limited!, 429, "rate_limited");
    expect(limited!.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  test("INK §9 order: a replay is answered nonce_replay and spends none of the sender's hourly budget", async () => {
    connectBob();
    setPolicy({ maxInboundRate: 3 });
    const once = signedIntent("bob", alice, { intent: "ping", payload: {} });
    expect((await postIntent(alice, once)).status).toBe(202);
    for (let i = 0; i < 5; i++) await expectRejected(await postIntent(alice, once, { headers: { [TEST_REMOTE_HEADER]: `203.0.113.${i}` } }), 409, "nonce_replay");
    for (let i = 0; i < 2; i++) expect((await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {} }))).status).toBe(202);
    await expectRejected(await postIntent(alice, signedIntent("bob", alice, { intent: "ping", payload: {} })), 429, "rate_limited");
    expect(stored()).toHaveLength(3);
  });

  test("a rejected request leaves nothing behind (no message, no nonce burned for the next valid one)", async () => {
    connectBob();
    const good = signedIntent("bob", alice, { intent: "ping", payload: {} });
    await postIntent(alice, good, { body: good.body.replace("ping", "pinG") });
    expect(stored()).toHaveLength(0);
    expect((await postIntent(alice, good)).status).toBe(202);
    expect(alice.db.select().from(connections).where(eq(connections.id, "con_bob")).get()!.lastMessageAt).not.toBeNull();
  });
});
