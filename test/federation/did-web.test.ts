import { afterEach, beforeEach, expect, test } from "bun:test";
import { signAgentCard } from "../../src/ink/index.ts";
import { publicKeyOf } from "../../src/security/agent-keys.ts";
import { events } from "../../src/db/schema/index.ts";
import { didWebDocumentUrl } from "../../src/domain/peers/internal/did-web.ts";
import { bootNetworkNode, type TestNode } from "../helpers/boot.ts";
import { testClock } from "../helpers/clock.ts";
import { postIntent, signedIntentFrom } from "../helpers/ink.ts";
import { asOwner } from "../helpers/owner.ts";
import { personaKey } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";
import { testTls } from "../helpers/tls.ts";

/** "dave" is a did:web agent: a DID document naming his card, and an endpoint, on dave.kith.test. */
let alice: TestNode & { url: string; stop(): Promise<void> };
let dave: ReturnType<typeof Bun.serve>;
let delivered: Array<Record<string, unknown>> = [];
let serviceInDoc = true;
/** INK §13: whether dave signs his card, and which keys his DID document lists as verification methods. */
let signCard = false;
let docKeys: "none" | "multibase" | "jwk" | "other" | "no-document" = "none";
const key = personaKey("carol", "signing");
const did = () => `did:web:dave.kith.test%3A${dave.port}`;

beforeEach(async () => {
  delivered = [];
  serviceInDoc = true;
  signCard = false;
  docKeys = "none";
  dave = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: testTls(),
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const base = `https://dave.kith.test:${dave.port}`;
      if (path === "/.well-known/did.json") {
        if (docKeys === "no-document") return new Response("gone", { status: 404 });
        const vm = (k: Record<string, unknown>) => [{ id: `${did()}#key-1`, type: "Multikey", controller: did(), ...k }];
        const methods = {
          none: {},
          multibase: { verificationMethod: vm({ publicKeyMultibase: key.publicKeyMultibase }) },
          jwk: { verificationMethod: vm({ type: "JsonWebKey2020", publicKeyJwk: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKeyOf(key)).toString("base64url") } }) },
          other: { assertionMethod: vm({ publicKeyMultibase: personaKey("bob", "signing").publicKeyMultibase }) },
        }[docKeys];
        return Response.json({ "@context": ["https://www.w3.org/ns/did/v1"], id: did(), ...methods, service: serviceInDoc ? [{ id: `${did()}#ink`, type: "INKAgentEndpoint", serviceEndpoint: `${base}/cards/dave.json` }] : [] });
      }
      if (path === "/cards/dave.json" || path === `/ink/v1/${encodeURIComponent(did())}/agent.json`) {
        const card = {
          protocol: "ink/0.1", agentId: did(), handle: "dave", displayName: "Dave", endpoint: `${base}/inbox`, publicKeyMultibase: key.publicKeyMultibase,
          capabilities: { intentsAccepted: ["ask", "connection_request"], intentsSent: ["ask"] }, availability: { timezone: "UTC" },
          keys: { signing: [{ keyId: key.keyId, algorithm: "Ed25519", publicKeyMultibase: key.publicKeyMultibase, status: "active", validFrom: "2026-01-01T00:00:00.000Z" }], encryption: [] },
          currentSigningKeyId: key.keyId,
          keySetVersion: 1,
        };
        const signed = signAgentCard(card, key.privateKey, key.keyId);
        return Response.json(signCard && signed.ok ? signed.card : card);
      }
      if (path === "/inbox" && req.method === "POST") {
        delivered.push((await req.json()) as Record<string, unknown>);
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

function daveSends(intent: string, payload: Record<string, unknown>) {
  return signedIntentFrom(key, did(), alice, intent, payload, { hint: true });
}

test("did:web document URLs follow the did:web method", () => {
  expect(didWebDocumentUrl("did:web:example.com")).toBe("https://example.com/.well-known/did.json");
  expect(didWebDocumentUrl("did:web:example.com%3A8443")).toBe("https://example.com:8443/.well-known/did.json");
  expect(didWebDocumentUrl("did:web:example.com:users:alice")).toBe("https://example.com/users/alice/did.json");
  expect(didWebDocumentUrl("did:web:bad host")).toBeNull();
  expect(didWebDocumentUrl("did:key:z6Mk")).toBeNull();
});

test("a did:web stranger's connection_request verifies with the keys of the card its DID document names", async () => {
  const res = await postIntent(alice, daveSends("connection_request", { method: "discovery", context: "hi from dave", profileSnapshot: { headline: "", skills: [], interests: [], openTo: [] } }));
  expect(res.status).toBe(202);
  const connections = await json(await asOwner(alice, "/api/svc/connections"));
  expect(connections.items[0]).toMatchObject({ agentId: did(), handle: "dave", status: "pending" });
  // A signature by another key is refused: the card's key set is authoritative.
  const forged = daveSends("connection_request", { method: "qr", context: "x", profileSnapshot: { headline: "", skills: [], interests: [], openTo: [] } });
  const other = personaKey("bob", "signing");
  const envelope = JSON.parse(forged.body);
  const { signTransport } = await import("../../src/ink/index.ts");
  const resigned = signTransport({ method: "POST", path: forged.path, recipientDid: alice.agentId!, body: envelope, timestamp: envelope.timestamp }, other.privateKey, other.keyId);
  if (!resigned.ok) throw new Error("sign");
  expect((await postIntent(alice, { ...forged, authorization: resigned.authorization })).status).toBe(401);
});

test("the owner can send to a did:web agent by its DID alone; without a service the INK discovery path is used", async () => {
  const sent = await asOwner(alice, "/api/svc/intents", { body: { to: did(), intent: "ask", payload: { question: "Are you there, Dave?" } } });
  expect(sent.status).toBe(202);
  await alice.drainOutbox();
  expect(delivered).toHaveLength(1);
  expect(delivered[0]).toMatchObject({ to: did(), intent: "ask", payload: { question: "Are you there, Dave?" } });

  serviceInDoc = false;
  await alice.stop();
  alice = await bootNetworkNode({ name: "alice", clock: testClock(Date.now()) });
  const again = await asOwner(alice, "/api/svc/intents", { body: { to: did(), intent: "ask", payload: { question: "Still there?" } } });
  expect(again.status).toBe(202);
  await alice.drainOutbox();
  expect(delivered).toHaveLength(2);
});

test("a signed did:web card is anchored in its DID document (multibase or JWK key); a signer the document does not list is refused", async () => {
  signCard = true;
  const ask = async (question: string) => asOwner(alice, "/api/svc/intents", { body: { to: did(), intent: "ask", payload: { question } } });
  const fresh = async () => {
    await alice.stop();
    alice = await bootNetworkNode({ name: "alice", clock: testClock(Date.now()) });
  };
  for (const variant of ["multibase", "jwk"] as const) {
    docKeys = variant;
    await fresh();
    expect((await ask(`via ${variant}`)).status).toBe(202);
    await alice.drainOutbox();
  }
  docKeys = "other";
  await fresh();
  const refused = await ask("not listed");
  expect(refused.status).toBe(400);
  expect((await json(refused)).message).toContain("invalid_card_proof (didweb_signer_not_anchored");
  docKeys = "none"; // a document without verification methods anchors nothing either
  await fresh();
  expect((await ask("no methods")).status).toBe(400);
  // Resolver unavailable: the reference's "continue" branch (failing closed is Phase C).
  docKeys = "no-document";
  await fresh();
  expect((await ask("no document")).status).toBe(202);
  expect(alice.logLines.some((l) => l.msg === "did:web document unavailable: card signature verified but not anchored")).toBe(true);
  // INK §13's audit event for it (vector didweb-resolver-unavailable-warm-continuity-accept).
  expect(alice.db.select().from(events).all().filter((e) => e.type === "card.anchor_unverified").map((e) => e.peerPrincipal)).toEqual([did()]);
  await alice.drainOutbox();
  expect(delivered.map((d) => (d.payload as { question: string }).question)).toEqual(["via multibase", "via jwk", "no document"]);
});
