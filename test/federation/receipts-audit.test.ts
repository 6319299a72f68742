import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { deliverOne } from "../../src/domain/outbox/deliver-one.ts";
import { listDueDeliveries } from "../../src/domain/outbox/list-due-deliveries.ts";
import { decidePending } from "../../src/domain/approvals/decide-pending.ts";
import { listPending } from "../../src/domain/approvals/list-pending.ts";
import { addConnection } from "../../src/domain/connections/add-connection.ts";
import { queryPeerAudit } from "../../src/domain/audit/query-peer-audit.ts";
import { auditEventsAbout, verifyAuditChain } from "../../src/domain/internal/audit-chain.ts";
import { activeSigningKey } from "../../src/domain/agent/active-signing-key.ts";
import { getSentMessage } from "../../src/domain/outbox/get-sent-message.ts";
import { sendIntent } from "../../src/domain/outbox/send-intent.ts";
import { formatTimestamp, normalizePrincipal, signTransport } from "../../src/ink/index.ts";
import { buildReceipt } from "../../src/ink/profiles.ts";
import { bootNetworkNode, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { testClock } from "../helpers/clock.ts";
import { freshNonce } from "../helpers/ink.ts";
import { signInByEmail } from "../helpers/owner.ts";

// Receipts (AUDIT §1) and the bilateral audit exchange (§4) between real TLS nodes on loopback.
// Receipts travel after the answer (fire-and-forget): waits are bounded polls, not timings.
setDefaultTimeout(30_000);
const owner = { kind: "owner", subject: "owner" } as const;
let nodes: NetworkNode[] = [];
afterEach(async () => {
  await stopNodes(...nodes);
  nodes = [];
});

async function connectedPair() {
  const clock = testClock();
  const alice = await bootNetworkNode({ name: "alice", clock, auth: { ownerEmail: "alice@example.com" } });
  const bob = await bootNetworkNode({ name: "bob", clock });
  nodes = [alice, bob];
  await addConnection(alice.ctx(owner), { cardUrl: bob.cardUrl! });
  await alice.drainOutbox();
  decidePending(bob.ctx(owner), listPending(bob.ctx(owner), {}).items[0]!.id, { decision: "approve" });
  await bob.drainOutbox();
  return { alice, bob, clock };
}

async function until<T>(read: () => T, done: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 2000; i++) {
    const v = read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
  return read();
}

const principal = (agentId: string) => (normalizePrincipal(agentId) as { principal: string }).principal;

/** A request signed as `from` (its node's active key) to `to`'s node at `path`. */
function signedPost(from: NetworkNode, to: NetworkNode, path: string, body: Record<string, unknown>) {
  const key = activeSigningKey(from.db, from.vault)!;
  const signed = signTransport({ method: "POST", path, recipientDid: to.agentId!, body, timestamp: body.timestamp as string }, key.privateKey, key.keyId);
  if (!signed.ok) throw new Error("unsignable");
  return to.request(path, { method: "POST", headers: { "content-type": "application/json", authorization: signed.authorization }, body: JSON.stringify(body) });
}

describe("INK receipts and audit exchange", () => {
  test("the card advertises both; a delivered message comes back with a verified receipt the owner sees; both chains hold the lifecycle and verify", async () => {
    const { alice, bob } = await connectedPair();
    const card = (await (await bob.request(new URL(bob.cardUrl!).pathname)).json()) as { capabilities: Record<string, unknown> };
    expect(card.capabilities).toMatchObject({ receipts: { send: true, dispositions: ["delivered"] }, auditExchange: true });

    const ask = await sendIntent(alice.ctx(owner), { to: bob.agentId!, intent: "ask", payload: { question: "Lunch?" } });
    expect(await alice.drainOutbox()).toBe(1);
    const sent = await until(() => getSentMessage(alice.ctx(owner), ask.id), (m) => m.receipts.length > 0);
    expect(sent.receipts).toHaveLength(1);
    expect(sent.receipts[0]).toMatchObject({ disposition: "delivered", receipt: { from: bob.agentId, to: alice.agentId, messageId: ask.id } });

    const atAlice = auditEventsAbout(alice.db, `ink:${principal(bob.agentId!)}`, ask.id);
    // In the order Alice saw them: Bob's receipt may overtake his HTTP answer (docs/decisions/receipts-and-audit.md).
    expect(atAlice.map((e) => e.eventType).sort()).toEqual(["message.sent", "receipt.received"]);
    const atBob = await until(() => auditEventsAbout(bob.db, `ink:${principal(alice.agentId!)}`, ask.id), (e) => e.length >= 2);
    expect(atBob.map((e) => e.eventType)).toEqual(["message.received", "receipt.sent"]);
    expect(atBob.every((e) => e.agentId === bob.agentId && e.counterpartyId === alice.agentId)).toBe(true);
    expect(verifyAuditChain(alice.db, `ink:${principal(bob.agentId!)}`).ok).toBe(true);
    expect(verifyAuditChain(bob.db, `ink:${principal(alice.agentId!)}`).ok).toBe(true);

    // The owner reconciles: Alice's node asks Bob's over INK and verifies what comes back.
    const audit = await queryPeerAudit(alice.ctx(owner), ask.id);
    expect(audit).toMatchObject({ peer: bob.agentId, messageId: ask.id, verified: true });
    expect(audit.events.map((e) => e.eventType)).toEqual(["message.received", "receipt.sent"]);
    expect((await alice.request(`/api/svc/intents/${ask.id}/audit`, { headers: { authorization: "Bearer x" } })).status).toBe(401);
    const { accessToken } = await signInByEmail(alice);
    const viaHttp = await alice.request(`/api/svc/intents/${ask.id}/audit`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(viaHttp.status).toBe(200);
    expect(((await viaHttp.json()) as { events: Array<{ eventType: string }> }).events.map((e) => e.eventType)).toEqual(["message.received", "receipt.sent"]);
    const sentView = await alice.request(`/api/svc/intents/${ask.id}`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(((await sentView.json()) as { receipts: unknown[] }).receipts).toHaveLength(1);
  });

  test("a sealed message's receipt hashes the decrypted envelope, and it verifies at the sender", async () => {
    const { alice, bob } = await connectedPair();
    const meeting = await sendIntent(alice.ctx(owner), { to: bob.agentId!, intent: "schedule_meeting", payload: { proposedTimes: ["2026-06-10T10:00:00Z"], topic: "Roadmap", format: "video", urgency: "normal" } });
    await alice.drainOutbox();
    expect(bob.db.$client.query<{ sealed: number }, [string]>("SELECT sealed FROM messages WHERE envelope_id = ?").get(meeting.id)?.sealed).toBe(1);
    const sent = await until(() => getSentMessage(alice.ctx(owner), meeting.id), (m) => m.receipts.length > 0);
    expect(sent.receipts.map((r) => r.disposition)).toEqual(["delivered"]);
  });

  test("each attempt's envelope is stored before it is sent: a receipt that arrives before the attempt settles matches it (a retry re-signs the envelope)", async () => {
    const { alice, bob, clock } = await connectedPair();
    const ping = await sendIntent(alice.ctx(owner), { to: bob.agentId!, intent: "ping", payload: { note: "twice" } });
    const row = () => alice.db.$client.query<{ envelope_json: string | null }, [string]>("SELECT envelope_json FROM messages WHERE envelope_id = ?").get(ping.id)!.envelope_json;
    const ctx = alice.ctx({ kind: "system", job: "outbox" });
    const seen: Array<{ stored: string | null; sent: string }> = [];
    const peers = (fail: boolean) => ({
      ...ctx.peers,
      http: {
        request: async (url: string, init?: Parameters<typeof ctx.peers.http.request>[1]) => {
          if (typeof init?.body === "string" && url.endsWith("/intent")) seen.push({ stored: row(), sent: init.body });
          return fail ? { ok: false as const, reason: "network_error" as const, detail: "down" } : ctx.peers.http.request(url, init);
        },
      },
    });
    await deliverOne({ ...ctx, peers: peers(true) }, listDueDeliveries(ctx, 10)[0]!);
    clock.advance(60_000);
    await deliverOne({ ...ctx, peers: peers(false) }, listDueDeliveries(ctx, 10)[0]!);
    expect(seen).toHaveLength(2);
    for (const s of seen) expect(JSON.parse(s.stored ?? "null")).toEqual(JSON.parse(s.sent));
    expect(seen[0]!.sent).not.toBe(seen[1]!.sent);
    const sent = await until(() => getSentMessage(alice.ctx(owner), ping.id), (m) => m.receipts.length > 0);
    expect(sent.receipts.map((r) => r.disposition)).toEqual(["delivered"]);
  });

  test("a receipt is refused when it does not match what was sent, names an unknown message, or replays a nonce", async () => {
    const { alice, bob, clock } = await connectedPair();
    const ask = await sendIntent(alice.ctx(owner), { to: bob.agentId!, intent: "ask", payload: { question: "Tea?" } });
    await alice.drainOutbox();
    await until(() => getSentMessage(alice.ctx(owner), ask.id), (m) => m.receipts.length > 0);
    const bobKey = activeSigningKey(bob.db, bob.vault)!;
    const make = (over: { message?: unknown; messageId?: string; nonce?: string }) => {
      const timestamp = formatTimestamp(clock.now());
      return buildReceipt({ from: bob.agentId!, to: alice.agentId!, messageId: over.messageId ?? ask.id, disposition: "acted", dispositionAt: timestamp, message: over.message ?? { other: "message" }, nonce: over.nonce ?? freshNonce(), timestamp }, bobKey.privateKey, "svc")!;
    };
    const wrongHash = await signedPost(bob, alice, "/ink/v1/receipt", make({}));
    expect(wrongHash.status).toBe(400);
    expect(await wrongHash.json()).toMatchObject({ error: "message_hash_mismatch" });
    const unknown = await signedPost(bob, alice, "/ink/v1/receipt", make({ messageId: "no-such-message" }));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: "unknown_message" });
    const envelope = JSON.parse(alice.db.$client.query<{ envelope_json: string }, [string]>("SELECT envelope_json FROM messages WHERE envelope_id = ?").get(ask.id)!.envelope_json);
    const good = make({ message: envelope, nonce: "receipt-nonce-0000000001" });
    expect((await signedPost(bob, alice, "/ink/v1/receipt", good)).status).toBe(200);
    const again = await signedPost(bob, alice, "/ink/v1/receipt", good);
    expect(again.status).toBe(409);
    expect(getSentMessage(alice.ctx(owner), ask.id).receipts.map((r) => r.disposition).sort()).toEqual(["acted", "delivered"]);
    const unsigned = await alice.request("/ink/v1/receipt", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(good) });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toMatchObject({ error: "missing_authorization" });
  });

  test("the audit exchange answers only the message's sender or recipient; the slice is signed and chained", async () => {
    const { alice, bob, clock } = await connectedPair();
    const carol = await bootNetworkNode({ name: "carol", clock });
    nodes.push(carol);
    const ask = await sendIntent(alice.ctx(owner), { to: bob.agentId!, intent: "ask", payload: { question: "Walk?" } });
    await alice.drainOutbox();
    const query = (from: NetworkNode) => ({ protocol: "ink/0.1", type: "network.ink.audit_query", from: from.agentId, to: bob.agentId, messageId: ask.id, nonce: freshNonce(), timestamp: formatTimestamp(clock.now()) });
    // Carol is a stranger to the message: access_denied (as for a message that does not exist).
    const denied = await signedPost(carol, bob, "/ink/v1/audit", query(carol));
    expect(denied.status).toBe(403);
    expect(await denied.json()).toMatchObject({ error: "access_denied" });
    const byAlice = await signedPost(alice, bob, "/ink/v1/audit", query(alice));
    expect(byAlice.status).toBe(200);
    const response = (await byAlice.json()) as { events: Array<Record<string, unknown>> };
    expect(response).toMatchObject({ protocol: "ink/0.1", type: "network.svc.audit_response", messageId: ask.id });
    expect(response.events[0]).toMatchObject({ eventType: "message.received", messageId: ask.id, version: "ink-audit/1" });
    const other = await signedPost(alice, bob, "/ink/v1/audit", { ...query(alice), messageId: "not-a-message-of-ours" });
    expect(other.status).toBe(403);
    expect(await other.json()).toMatchObject({ error: "access_denied" });
  });
});
