// Issue 12: a peer whose card is the minimal card INK's rules accept (no keys block, no signature,
// no supportedProtocolVersions, no encryption key, no profile snapshot) can connect and be answered
// through real in-process nodes; a card INK refuses is refused with the member named
// (docs/decisions/peer-cards.md).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { validateAgentCard, verifyBody, verifyTransportSignature } from "../../src/ink/index.ts";
import { publicKeyOf } from "../../src/security/agent-keys.ts";
import { bootNetworkNode, type NetworkNode } from "../helpers/boot.ts";
import { testClock } from "../helpers/clock.ts";
import { LISTINGS_PATH, listingRequest } from "../helpers/discovery.ts";
import { postIntent, signedIntentFrom } from "../helpers/ink.ts";
import { asOwner } from "../helpers/owner.ts";
import { personaKey } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";
import { testTls } from "../helpers/tls.ts";

/** "dave": a did:web agent on dave.kith.test whose card is INK's minimal card; no DID document. */
let alice: NetworkNode;
let dave: ReturnType<typeof Bun.serve>;
let delivered: Array<{ path: string; authorization: string | null; body: Record<string, unknown> }> = [];
let cardEdit: (card: Record<string, unknown>) => unknown = (c) => c;
const key = personaKey("carol", "signing");
const did = () => `did:web:dave.kith.test%3A${dave.port}`;
/** The same key as a key-derived principal, whose card lives wherever its owner says. */
const keyId = `svc:${key.publicKeyMultibase}`;
const keyCardUrl = () => `https://dave.kith.test:${dave.port}/cards/dave.json`;

function minimalCard(agentId = did()): Record<string, unknown> {
  return {
    protocol: "ink/0.1",
    agentId,
    handle: "dave",
    displayName: "Dave",
    endpoint: `https://dave.kith.test:${dave.port}/ink/inbox`,
    publicKeyMultibase: key.publicKeyMultibase,
    capabilities: { intentsAccepted: ["ask", "ping"], intentsSent: ["ask"] },
    availability: { timezone: "America/Los_Angeles" },
  };
}

beforeEach(async () => {
  delivered = [];
  cardEdit = (c) => c;
  dave = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: testTls(),
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === `/ink/v1/${encodeURIComponent(did())}/agent.json`) {
        const card = cardEdit(minimalCard());
        // Raw bytes as served (INK §12 / agent-card-fetch bodyHex cases), else JSON.
        return card instanceof Uint8Array ? new Response(card, { headers: { "content-type": "application/json" } }) : Response.json(card);
      }
      if (path === "/cards/dave.json") return Response.json(cardEdit(minimalCard(keyId)));
      // For a directory: the key-derived card at its INK discovery path, opted in to listing.
      if (path === `/ink/v1/${encodeURIComponent(keyId)}/agent.json`) return Response.json(cardEdit({ ...minimalCard(keyId), discovery: { enabled: true, scope: "public" } }));
      if (path === "/ink/inbox" && req.method === "POST") {
        delivered.push({ path, authorization: req.headers.get("authorization"), body: (await req.json()) as Record<string, unknown> });
        return Response.json({ accepted: true });
      }
      return new Response("not found", { status: 404 });
    },
  });
  alice = await bootNetworkNode({ name: "alice", clock: testClock(Date.now()) });
});
afterEach(async () => {
  await alice.stop();
  dave.stop(true);
});

/** What dave sends: a body-signed envelope, transport-signed over alice's endpoint path, no key hint. */
function daveSends(intent: string, payload: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return signedIntentFrom(key, did(), alice, intent, payload, { extra });
}

/** Alice's outbound delivery as dave checks it: both signatures under alice's key, for dave's endpoint. */
function verifiedByDave(d: (typeof delivered)[number], recipientDid = did()): boolean {
  const sig = /^INK-Ed25519 ([A-Za-z0-9_-]{86})/.exec(d.authorization ?? "")?.[1];
  const alicePk = publicKeyOf(personaKey("alice", "signing"));
  const transport = verifyTransportSignature({ method: "POST", path: "/ink/inbox", recipientDid, body: d.body, timestamp: d.body.timestamp as string }, sig, alicePk);
  return transport && verifyBody(d.body, alicePk, "svc");
}

const request = { method: "discovery", context: "hello from a minimal card", profileSnapshot: { headline: "Dave", skills: [], interests: [], openTo: [] } };

describe("a peer serving INK's minimal card", () => {
  test("the card is INK-valid as served", () => {
    expect(validateAgentCard(minimalCard())).toMatchObject({ ok: true });
  });

  test("connects (the owner accepts) and is answered: connection_response, then an ask answered", async () => {
    const asked = await postIntent(alice, daveSends("connection_request", request));
    expect(asked.status).toBe(202);
    const { pendingActionId } = await json(asked);
    expect((await asOwner(alice, `/api/svc/pending/${pendingActionId}`, { body: { decision: "approve" } })).status).toBe(200);
    await alice.drainOutbox();
    expect(delivered.map((d) => [d.body.intent, (d.body.payload as { status?: string }).status, d.body.to, d.body.protocol])).toEqual([["connection_response", "accepted", did(), "ink/0.1"]]);
    expect(verifiedByDave(delivered[0]!)).toBe(true);

    const question = daveSends("ask", { question: "Lunch on Friday?" });
    const res = await postIntent(alice, question);
    expect([200, 202]).toContain(res.status);
    expect((await asOwner(alice, `/api/svc/inbox/${question.envelope.id}/respond`, { body: { payload: { answer: "Yes" } } })).status).toBe(202);
    await alice.drainOutbox();
    expect(delivered.map((d) => d.body.intent)).toEqual(["connection_response", "ask_response"]);
    expect(delivered[1]!.body).toMatchObject({ to: did(), correlationId: question.envelope.correlationId, payload: { answer: "Yes" } });
    expect(verifiedByDave(delivered[1]!)).toBe(true);
    // The owner sees the peer by the names its card gives.
    const connections = await json(await asOwner(alice, "/api/svc/connections"));
    expect(connections.items.find((c: { agentId: string }) => c.agentId === did())).toMatchObject({ handle: "dave", displayName: "Dave", status: "connected" });
  });

  test("the owner can write first to a minimal-card peer by its DID", async () => {
    const sent = await asOwner(alice, "/api/svc/intents", { body: { to: did(), intent: "ping", payload: { note: "hi" } } });
    expect(sent.status).toBe(202);
    await alice.drainOutbox();
    expect(delivered.map((d) => d.body.intent)).toEqual(["ping"]);
    expect(verifiedByDave(delivered[0]!)).toBe(true);
  });

  test("a key-derived peer with a minimal card: the owner connects by its card URL, and its acceptance and questions are taken", async () => {
    const sent = await asOwner(alice, "/api/svc/intents", { body: { to: keyId, cardUrl: keyCardUrl(), intent: "connection_request", payload: request } });
    expect(sent.status).toBe(202);
    await alice.drainOutbox();
    expect(delivered.map((d) => d.body.intent)).toEqual(["connection_request"]);
    expect(verifiedByDave(delivered[0]!, keyId)).toBe(true);
    const thread = delivered[0]!.body;
    const accepted = daveSends("connection_response", { status: "accepted", profileSnapshot: request.profileSnapshot }, { from: keyId, correlationId: thread.correlationId });
    expect([200, 202]).toContain((await postIntent(alice, accepted)).status);
    const connections = await json(await asOwner(alice, "/api/svc/connections"));
    expect(connections.items.find((c: { agentId: string }) => c.agentId === keyId)).toMatchObject({ handle: "dave", status: "connected" });
    const question = daveSends("ask", { question: "Coffee?" }, { from: keyId });
    expect([200, 202]).toContain((await postIntent(alice, question)).status);
    expect((await asOwner(alice, `/api/svc/inbox/${question.envelope.id}/respond`, { body: { payload: { answer: "Sure" } } })).status).toBe(202);
    await alice.drainOutbox();
    expect(delivered.map((d) => d.body.intent)).toEqual(["connection_request", "ask_response"]);
    expect(verifiedByDave(delivered[1]!, keyId)).toBe(true);
  });

  test("a directory lists a minimal card that opts in (a discovery descriptor is all it adds), and finds it", async () => {
    const cardUrl = `https://dave.kith.test:${dave.port}/ink/v1/${encodeURIComponent(keyId)}/agent.json`;
    const listed = await alice.request(LISTINGS_PATH, listingRequest(alice, { from: keyId, cardUrl, signer: "carol" }));
    expect({ status: listed.status, body: await json(listed) }).toMatchObject({ status: 200, body: { status: "listed", agentId: keyId, handle: "dave" } });
    const found = await json(await alice.request("/discover?q=dave"));
    expect(found.results.map((r: { agentId: string; displayName: string; headline: string }) => [r.agentId, r.displayName, r.headline])).toEqual([[keyId, "Dave", ""]]);
  });

  test("the card's bytes as served: invalid UTF-8 and a byte-order mark are refused, multibyte text is kept (agent-card-fetch)", async () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    const text = () => JSON.stringify(minimalCard());
    const withInvalidByte = () => {
      const b = bytes(text().replace('"Dave"', '"Da?e"'));
      b[b.indexOf(0x3f)] = 0xff;
      return b;
    };
    const send = () => asOwner(alice, "/api/svc/intents", { body: { to: did(), intent: "ping", payload: {} } });
    for (const [name, edit] of [["invalid UTF-8", withInvalidByte], ["BOM", () => new Uint8Array([0xef, 0xbb, 0xbf, ...bytes(text())])]] as const) {
      cardEdit = edit;
      const res = await send();
      expect({ name, status: res.status, invalidBody: String((await json(res)).message).includes("invalid_body") }).toEqual({ name, status: 400, invalidBody: true });
    }
    cardEdit = () => bytes(text().replace('"Dave"', '"Dävé 漢字 😀"'));
    expect((await send()).status).toBe(202);
    await alice.drainOutbox();
    expect(delivered.map((d) => d.body.intent)).toEqual(["ping"]);
  });

  // INK's card rules (vectors missing-handle-rejects, missing-capabilities-rejects,
  // missing-availability-rejects) refuse what SPEC leaves optional; the refusal names the member.
  test("a card INK refuses (no handle, no capabilities, no availability, capabilities as an array) is refused, naming the member", async () => {
    const variants: Array<[string, (c: Record<string, unknown>) => unknown]> = [
      ["handle", ({ handle: _h, ...c }) => c],
      ["displayName", ({ displayName: _d, ...c }) => c],
      ["capabilities", ({ capabilities: _c, ...c }) => c],
      ["availability", ({ availability: _a, ...c }) => c],
      ["capabilities", (c) => ({ ...c, capabilities: ["ask", "ping"] })],
    ];
    for (const [member, edit] of variants) {
      cardEdit = edit;
      const sent = await asOwner(alice, "/api/svc/intents", { body: { to: did(), intent: "ping", payload: {} } });
      const body = await json(sent);
      expect({ member, status: sent.status, error: body.error }).toEqual({ member, status: 400, error: body.error });
      expect({ member, message: String(body.message).includes(`invalid_card (${member}`) }).toEqual({ member, message: true });
    }
    expect(delivered).toEqual([]);
    // Inbound, the sender's keys cannot be resolved from a card INK refuses: 401, the reason logged.
    cardEdit = ({ handle: _h, ...c }) => c;
    const res = await postIntent(alice, daveSends("connection_request", request));
    expect({ status: res.status, code: (await json(res)).code }).toEqual({ status: 401, code: "unresolvable_sender_key" });
  });
});
