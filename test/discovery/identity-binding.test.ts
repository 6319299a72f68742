// Issue 21 "Identity binding", from the attacker's side: a stranger (acme's key) serves an unsigned
// card that claims the victim's key-derived id (alice's genesis key) and lists the stranger's key
// too. Three real in-process nodes over TLS: directory D, the victim alice, and bob, whose owner
// contacts "alice" through what D lists.
import { afterEach, describe, expect, test } from "bun:test";
import { directoryListings, peerCards } from "../../src/db/schema/index.ts";
import { bootNetworkNode, type NetworkNode, type TestNode } from "../helpers/boot.ts";
import { testClock } from "../helpers/clock.ts";
import { fakeAgent, LISTINGS_PATH, listingRequest } from "../helpers/discovery.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";
import { asOwner } from "../helpers/owner.ts";
import { json } from "../helpers/process.ts";

let nodes: NetworkNode[] = [];
let fakes: Array<{ stop(): unknown }> = [];
afterEach(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  for (const f of fakes) f.stop();
  nodes = [];
  fakes = [];
});

async function network() {
  const clock = testClock();
  const dir = await bootNetworkNode({ name: "dir", persona: "carol", clock });
  const alice = await bootNetworkNode({ name: "alice", clock, discovery: { directories: [dir.url] } });
  const bob = await bootNetworkNode({ name: "bob", clock });
  nodes.push(dir, alice, bob);
  // The stranger's card: alice's id and genesis key, plus acme's key; unsigned (no proof roots acme's key in alice's id).
  const impostor = fakeAgent("impostor", "alice", { extraKeys: ["acme"] });
  impostor.state.handle = "alice";
  fakes.push(impostor);
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
    const { dir, alice, impostor } = await network();
    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    expect((await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: alice.cardUrl! }))).status).toBe(200);
    // alice's node is down for a moment (the listed card cannot be fetched) ...
    await alice.stop();
    nodes = nodes.filter((n) => n !== alice);
    // ... the stranger tries to move the listing to its card, and to withdraw it
    for (const action of ["publish", "unpublish"]) {
      const res = await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: impostor.cardUrl, signer: "acme", action }));
      expect({ action, status: res.status }).toEqual({ action, status: 401 });
    }
    expect(listed(dir).map((l) => l.cardUrl)).toEqual([alice.cardUrl!]);
    // alice herself (her genesis key) may move her listing even while the old card is unreachable
    const moved = await post(dir, listingRequest(dir, { from: alice.agentId!, cardUrl: impostor.cardUrl, signer: "alice" }));
    expect(moved.status).toBe(200);
    expect(listed(dir).map((l) => l.cardUrl)).toEqual([impostor.cardUrl]);
  });
});
