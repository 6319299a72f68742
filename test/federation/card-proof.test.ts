// INK §13 between two real nodes: Alice verifies, roots and ratchets Bob's signed card. Bob's card
// reaches Alice through a card host the test controls ("bobcard"), which serves what Bob serves or
// a doctored card: unsigned, invalidly signed, or an older one replayed.
import { afterEach, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { decidePending } from "../../src/domain/approvals/decide-pending.ts";
import { listPending } from "../../src/domain/approvals/list-pending.ts";
import { addConnection } from "../../src/domain/connections/add-connection.ts";
import { updateConnection } from "../../src/domain/connections/update-connection.ts";
import { listInbox } from "../../src/domain/inbox/list-inbox.ts";
import { rotateSigningKey } from "../../src/domain/identity/rotate-signing-key.ts";
import { sendIntent } from "../../src/domain/outbox/send-intent.ts";
import { CARD_TTL_MS } from "../../src/domain/peers/peer-cards.ts";
import { findPeerCard } from "../../src/domain/peers/find-peer-card.ts";
import { events } from "../../src/db/schema/index.ts";
import { normalizePrincipal, verifyAgentCardProof } from "../../src/ink/index.ts";
import { bootNetworkPair, stopNodes, type NetworkNode } from "../helpers/boot.ts";
import { personaKeyGenerator } from "../helpers/personas.ts";
import { testTls } from "../helpers/tls.ts";

const owner = { kind: "owner", subject: "owner" } as const;
let alice: NetworkNode;
let bob: NetworkNode;
let host: ReturnType<typeof Bun.serve> | null = null;
afterEach(async () => {
  host?.stop(true);
  host = null;
  await stopNodes(alice, bob);
});

type Mode = "pass" | "unsigned" | "tampered" | { replay: string };
let mode: Mode = "pass";

/** Bob's card as the card host serves it in the current mode. */
async function servedCard(path: string): Promise<Response> {
  if (typeof mode === "object") return new Response(mode.replay, { headers: { "content-type": "application/json" } });
  const card = JSON.parse(await (await bob.request(path)).text());
  if (mode === "unsigned") delete card.cardSignature;
  if (mode === "tampered") card.displayName = "Not Bob";
  return Response.json(card);
}

async function setup(options: { viaCardHost: boolean }) {
  ({ alice, bob } = await bootNetworkPair());
  mode = "pass";
  host = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: testTls(), fetch: (req) => servedCard(new URL(req.url).pathname) });
  const cardUrl = options.viaCardHost ? `https://bobcard.kith.test:${host.port}/ink/v1/${encodeURIComponent(bob.agentId!)}/agent.json` : bob.cardUrl!;
  await addConnection(alice.ctx(owner), { cardUrl, context: "hello" });
  expect(await alice.drainOutbox()).toBe(1);
  decidePending(bob.ctx(owner), listPending(bob.ctx(owner), {}).items[0]!.id, { decision: "approve" });
  expect(await bob.drainOutbox()).toBe(1);
  expect(storedBobCard().cardSignature).toMatchObject({ keyId: "sig-bob-0" });
}

const bobPrincipal = () => (normalizePrincipal(bob.agentId!) as { principal: string }).principal;
const storedBobCard = () => JSON.parse(findPeerCard(alice.db, bobPrincipal())!.cardJson!);
const violations = () => alice.db.select().from(events).where(eq(events.type, "card.continuity_violation")).all();

/** Bob asks Alice something; returns whether it reached her inbox. */
async function bobAsks(question: string): Promise<boolean> {
  await sendIntent(bob.ctx(owner), { to: alice.agentId!, intent: "ask", payload: { question } });
  await bob.drainOutbox();
  return listInbox(alice.ctx(owner), { intent: "ask" }).items.some((m) => (m.payload as { question?: string }).question === question);
}

function rotateBob() {
  const generate = personaKeyGenerator("bob");
  generate("signing", "", 0); // generation 0 is Bob's genesis key
  bob.clock.advance(61_000); // past the one-refetch-a-minute throttle of Alice's resolver
  rotateSigningKey(bob.ctx(owner), { generateKey: generate });
}

test("Bob rotates: Alice still accepts his intents and stores his new signed card, rooted through its chain", async () => {
  await setup({ viaCardHost: false });
  rotateBob();
  expect(await bobAsks("after the rotation?")).toBe(true);
  const stored = storedBobCard();
  expect(stored).toMatchObject({ keySetVersion: 2, cardSignature: { keyId: "sig-bob-1" } });
  expect(verifyAgentCardProof(stored)).toMatchObject({ ok: true, kind: "signed", anchor: "rotation-chain" });
  // And Alice's deliveries to Bob keep going.
  const sent = await sendIntent(alice.ctx(owner), { to: bob.agentId!, intent: "ask", payload: { question: "and back?" } });
  await alice.drainOutbox();
  expect(listInbox(bob.ctx(owner), { intent: "ask" }).items.some((m) => m.id === sent.id)).toBe(true);
  expect(violations()).toHaveLength(0);
});

test("a served card that turns unsigned is refused; the cached signed card keeps working; the violation is recorded", async () => {
  await setup({ viaCardHost: true });
  mode = "unsigned";
  alice.clock.advance(CARD_TTL_MS + 1); // Alice's copy is stale: the next message refetches it
  expect(await bobAsks("still me?")).toBe(true);
  expect(storedBobCard().cardSignature).toMatchObject({ keyId: "sig-bob-0" });
  const recorded = violations();
  expect(recorded).toHaveLength(1);
  expect(recorded[0]).toMatchObject({ peerPrincipal: bobPrincipal() });
  expect(JSON.parse(recorded[0]!.dataJson!)).toMatchObject({ reason: "unsigned_after_authenticated", cachedKeySetVersion: 1 });
  expect(alice.logLines.some((l) => l.level === "warn" && l.msg === "peer card refused: continuity violation; the stored card stays in use")).toBe(true);
  // Outbound too: Alice's delivery refetches, is refused again, and delivers with the cached card.
  const sent = await sendIntent(alice.ctx(owner), { to: bob.agentId!, intent: "ask", payload: { question: "ok?" } });
  await alice.drainOutbox();
  expect(listInbox(bob.ctx(owner), { intent: "ask" }).items.some((m) => m.id === sent.id)).toBe(true);
  expect(violations().length).toBeGreaterThanOrEqual(2);
  // Once the genuine card is served again it is accepted (same version, same key).
  mode = "pass";
  alice.clock.advance(CARD_TTL_MS + 1);
  expect(await bobAsks("back to normal")).toBe(true);
  expect(findPeerCard(alice.db, bobPrincipal())!.fetchedAt).toBe(alice.clock.now());
});

test("an invalidly signed card is refused outright, never taken as unsigned; the owner sees why", async () => {
  await setup({ viaCardHost: true });
  mode = "tampered";
  alice.clock.advance(CARD_TTL_MS + 1);
  expect(await bobAsks("tampered?")).toBe(true); // verified with the cached card (within the stale grace)
  const stored = storedBobCard();
  expect(stored.displayName).toBe("Bob Example");
  expect(alice.logLines.some((l) => l.msg === "peer card refused: invalid card proof" && String(l.issue).startsWith("invalid_signature"))).toBe(true);
  const connection = (await import("../../src/domain/connections/list-connections.ts")).listConnections(alice.ctx(owner), {}).items[0]!;
  await expect(updateConnection(alice.ctx(owner), connection.id, { cardUrl: connection.cardUrl! })).rejects.toThrow(/invalid_card_proof/);
  expect(violations()).toHaveLength(0);
});

test("a replayed older card (keySetVersion rollback) is refused; the newer cached card keeps verifying Bob", async () => {
  await setup({ viaCardHost: true });
  const v1 = await (await bob.request("/.well-known/ink/agent.json")).text();
  rotateBob();
  expect(await bobAsks("rotated")).toBe(true);
  expect(storedBobCard()).toMatchObject({ keySetVersion: 2 });
  mode = { replay: v1 };
  alice.clock.advance(CARD_TTL_MS + 1);
  expect(await bobAsks("signed with my new key")).toBe(true);
  expect(storedBobCard()).toMatchObject({ keySetVersion: 2, cardSignature: { keyId: "sig-bob-1" } });
  const recorded = violations();
  expect(recorded).toHaveLength(1);
  expect(JSON.parse(recorded[0]!.dataJson!)).toMatchObject({ reason: "continuity_version_regression", cachedKeySetVersion: 2, fetchedKeySetVersion: 1 });
});
