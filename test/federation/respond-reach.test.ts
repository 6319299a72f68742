// Issue 12 "Owner writes": answering a connection_request must reach the peer the inbox shows —
// through the card URL the owner gives, or the card hint the peer gave (when its key signed it) —
// or fail at once with an error the owner can read, never "202 queued" and a delivery that fails.
import { describe, expect, test } from "bun:test";
import { outbox } from "../../src/db/schema/index.ts";
import { signAgentCard } from "../../src/ink/index.ts";
import { bootNetworkNode } from "../helpers/boot.ts";
import { stopAfterEach } from "../helpers/cleanup.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";
import { asOwner } from "../helpers/owner.ts";
import { personaKey } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";
import { testTls } from "../helpers/tls.ts";

const keep = stopAfterEach();

/** Carol as an independent INK agent: her card (signed by her genesis key, or not) and an inbox. */
function inkPeer(options: { signed: boolean }) {
  const key = personaKey("carol", "signing");
  const agentId = `svc:${key.publicKeyMultibase}`;
  const received: Array<Record<string, unknown>> = [];
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: testTls(),
    async fetch(req): Promise<Response> {
      const path = new URL(req.url).pathname;
      if (req.method === "POST" && path === "/inbox") return received.push((await req.json()) as Record<string, unknown>), Response.json({ accepted: true });
      if (path !== `/ink/v1/${encodeURIComponent(agentId)}/agent.json`) return new Response("no", { status: 404 });
      const card: Record<string, unknown> = {
        protocol: "ink/0.1", agentId, handle: "carol", displayName: "Carol", endpoint: `${base}/inbox`, publicKeyMultibase: key.publicKeyMultibase,
        capabilities: { intentsAccepted: ["connection_request", "connection_response"], intentsSent: ["connection_request"] }, availability: { timezone: "UTC" },
        keys: { signing: [{ keyId: key.keyId, algorithm: "Ed25519", publicKeyMultibase: key.publicKeyMultibase, status: "active", validFrom: "2026-01-01T00:00:00.000Z" }], encryption: [] },
        currentSigningKeyId: key.keyId, keySetVersion: 1,
      };
      const signed = signAgentCard(card, key.privateKey, key.keyId);
      return Response.json(options.signed && signed.ok ? signed.card : card);
    },
  });
  const base = `https://carol.kith.test:${server.port}`;
  return keep({ agentId, received, cardUrl: `${base}/ink/v1/${encodeURIComponent(agentId)}/agent.json`, stop: () => server.stop(true) });
}

const request = { intent: "connection_request", payload: { method: "discovery", context: "hi", profileSnapshot: { headline: "", skills: [], interests: [], openTo: [] } } };
async function requestFromCarol(options: { hint?: string } = {}) {
  const alice = keep(await bootNetworkNode({ name: "alice" }));
  const res = await postIntent(alice, signedIntent("carol", alice, request), options.hint ? { headers: { link: `<${options.hint}>; rel="agent-card"` } } : {});
  expect(res.status).toBe(202);
  const [message] = (await json(await asOwner(alice, "/api/svc/inbox"))).items;
  const [connection] = (await json(await asOwner(alice, "/api/svc/connections"))).items;
  return { node: alice, message, connection, pendingActionId: (await json(res)).pendingActionId };
}
const accepted = (r: Record<string, unknown>) => r.intent === "connection_response" && (r.payload as { status?: string }).status === "accepted";

describe("answering a connection request reaches the peer, or says why it cannot", () => {
  test("a cardless key-derived sender: respond without cardUrl is 409 naming what to do, and nothing changes", async () => {
    const { node, message, connection } = await requestFromCarol();
    const res = await asOwner(node, `/api/svc/inbox/${message.id}/respond`, { body: { payload: { status: "accepted" } } });
    expect(res.status).toBe(409);
    expect((await json(res)).message).toContain("cardUrl");
    expect((await json(await asOwner(node, `/api/svc/connections/${connection.id}`))).status).toBe("pending");
    expect(node.db.select().from(outbox).all()).toEqual([]);
    // the other ways of answering say the same
    const patched = await asOwner(node, `/api/svc/connections/${connection.id}`, { method: "PATCH", body: { status: "connected" } });
    expect(patched.status).toBe(409);
    const decided = await asOwner(node, `/api/svc/pending/${(await json(await asOwner(node, "/api/svc/pending"))).items[0].id}`, { body: { decision: "reject" } });
    expect(decided.status).toBe(409);
    expect(node.db.select().from(outbox).all()).toEqual([]);
  });

  test("respond with the cardUrl the owner trusts: the answer is delivered there", async () => {
    const peer = inkPeer({ signed: false });
    const { node, message } = await requestFromCarol();
    expect((await asOwner(node, `/api/svc/inbox/${message.id}/respond`, { body: { payload: { status: "accepted" }, cardUrl: peer.cardUrl } })).status).toBe(202);
    await node.drainOutbox();
    expect(peer.received.filter(accepted)).toHaveLength(1);
    expect((await json(await asOwner(node, "/api/svc/connections"))).items[0]).toMatchObject({ status: "connected", cardUrl: peer.cardUrl });
  });

  test("the hint the sender gave, signed by its key, is where the answer goes without any cardUrl", async () => {
    const peer = inkPeer({ signed: true });
    const { node, message } = await requestFromCarol({ hint: peer.cardUrl });
    expect((await asOwner(node, `/api/svc/inbox/${message.id}/respond`, { body: { payload: { status: "declined" } } })).status).toBe(202);
    await node.drainOutbox();
    expect(peer.received.map((r) => [r.intent, (r.payload as { status: string }).status])).toEqual([["connection_response", "declined"]]);
  });

  test("accepting through PATCH or by connecting to it with its card URL uses the card URL given", async () => {
    const peer = inkPeer({ signed: false });
    const { node, connection } = await requestFromCarol();
    expect((await asOwner(node, `/api/svc/connections/${connection.id}`, { method: "PATCH", body: { status: "connected", cardUrl: peer.cardUrl } })).status).toBe(200);
    await node.drainOutbox();
    expect(peer.received.filter(accepted)).toHaveLength(1);
  });

  test("connecting (POST /api/svc/connections) to an agent whose request is pending answers it at the card URL given", async () => {
    const peer = inkPeer({ signed: false });
    const { node } = await requestFromCarol();
    expect((await asOwner(node, "/api/svc/connections", { body: { cardUrl: peer.cardUrl } })).status).toBe(202);
    await node.drainOutbox();
    expect(peer.received.filter(accepted)).toHaveLength(1);
  });
});
