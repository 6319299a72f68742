// Issue 21 "Identity binding", from the attacker's side: a stranger (acme's key) serves an unsigned
// card that claims the victim's key-derived id (alice's genesis key) and lists the stranger's key
// too. Three real in-process nodes over TLS: directory D, the victim alice, and bob, whose owner
// contacts "alice" through what D lists.
import { describe, expect, test } from "bun:test";
import { directoryListings, peerCards } from "../../src/db/schema/index.ts";
import { bootNetworkNode, type TestNode } from "../helpers/boot.ts";
import { stopAfterEach } from "../helpers/cleanup.ts";
import { testClock } from "../helpers/clock.ts";
import { fakeAgent, LISTINGS_PATH, listingRequest } from "../helpers/discovery.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

const keep = stopAfterEach();

async function network() {
  const clock = testClock();
  const dir = keep(await bootNetworkNode({ name: "dir", persona: "carol", clock }));
  const alice = keep(await bootNetworkNode({ name: "alice", clock, discovery: { directories: [dir.url] } }));
  const bob = keep(await bootNetworkNode({ name: "bob", clock }));
  // The stranger's card: alice's id and genesis key, plus acme's key; unsigned (no proof roots acme's key in alice's id).
  const impostor = keep(fakeAgent("impostor", "alice", { extraKeys: ["acme"] }));
  impostor.state.handle = "alice";
  return { dir, alice, bob, impostor };
}
const post = (node: TestNode, init: RequestInit) => node.request(LISTINGS_PATH, init);
const listed = (dir: TestNode) => dir.db.select().from(directoryListings).all().filter((l) => l.status === "listed");

describe("a stranger cannot be listed as, or trusted as, another agent", () => {
  test("listing under the victim's id with an unsigned card that adds the stranger's key: refused (401), nothing indexed", async () => {
    const { dir, alice, impostor } = await network();
    const res = await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: impostor.cardUrl, signer: "acme" }));
    expect(res.status).toBe(401);
    expect(listed(dir)).toEqual([]);
    expect((await json(await dir.request("/discover?q=alice"))).results).toEqual([]);
  });

  test("a node contacting the victim through that card refuses a connection_response signed by the stranger", async () => {
    const { alice, bob, impostor } = await network();
    // bob's owner found "alice" at the impostor's card URL (e.g. in a directory) and asks to connect
    const added = await asOwner(bob, "/api/svc/connections", { body: { cardUrl: impostor.cardUrl, context: "hello alice" } });
    expect(added.status).toBe(202);
    const { request } = await json(added);
    const stored = bob.db.select().from(peerCards).all().find((p) => p.agentId === alice.agentId)!;
    expect(JSON.parse(stored.cardJson!).keys.signing.map((k: { keyId: string }) => k.keyId)).toEqual(["sig-alice-0"]); // acme's key is not bound

    // the stranger answers "accepted" as alice, signing with acme's key
    const forged = signedIntent("acme", bob, { from: alice.agentId!, intent: "connection_response", correlationId: request.correlationId, payload: { status: "accepted" } });
    const res = await postIntent(bob, forged);
    expect(res.status).toBe(401);
    expect((await json(res)).code).toBe("signature_verification_failed");
    const [connection] = (await json(await asOwner(bob, "/api/svc/connections"))).items;
    expect(connection).toMatchObject({ agentId: alice.agentId, status: "requested" });

    // the victim's own key still speaks for the victim
    const genuine = signedIntent("alice", bob, { intent: "connection_response", correlationId: request.correlationId, payload: { status: "accepted" } });
    expect((await postIntent(bob, genuine)).status).toBe(200);
    expect((await json(await asOwner(bob, "/api/svc/connections"))).items[0]).toMatchObject({ status: "connected" });
  });

  test("a listing moves or is withdrawn only on the listed agent's own verified request, never because its card failed once", async () => {
    const { dir, impostor } = await network();
    const victim = keep(fakeAgent("victim", "alice")); // alice's agent, her card at her own host
    expect((await post(dir, listingRequest(dir, { from: victim.agentId, cardUrl: victim.cardUrl }))).status).toBe(200);
    for (const mode of ["404", "503"] as const) {
      victim.state.mode = mode; // the listed card does not answer for a moment ...
      // ... and the stranger tries to move the listing to its card, and to withdraw it
      for (const action of ["publish", "unpublish"]) {
        const res = await post(dir, listingRequest(dir, { from: victim.agentId, cardUrl: impostor.cardUrl, signer: "acme", action }));
        expect({ mode, action, status: res.status }).toEqual({ mode, action, status: 401 });
      }
    }
    expect(listed(dir).map((l) => l.cardUrl)).toEqual([victim.cardUrl]);
    // alice herself (her genesis key) may move her listing, even while the old card does not answer
    expect((await post(dir, listingRequest(dir, { from: victim.agentId, cardUrl: impostor.cardUrl, signer: "alice" }))).status).toBe(200);
    expect(listed(dir).map((l) => l.cardUrl)).toEqual([impostor.cardUrl]);
  });
});
