// Issue 21 "Canonical principals", from the attacker's side: the owner's lists of agents are
// compared as canonical principals (INK §2.2), so a blocked key cannot get through by spelling its
// id `tulpa:` or `ink:` instead of `svc:`; allow and trust lists match every spelling too. Rows
// written before canonical storage are read canonical.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { connections, ownerPolicy } from "../../src/db/schema/index.ts";
import { decidePending } from "../../src/domain/approvals/decide-pending.ts";
import { listPending } from "../../src/domain/approvals/list-pending.ts";
import { listInbox } from "../../src/domain/inbox/list-inbox.ts";
import { bootNetworkNode, bootNetworkPair, bootTestApp, stopNodes, type NetworkNode, type TestNode } from "../helpers/boot.ts";
import { runAssistantJob } from "../helpers/assistant.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";
import { asOwner } from "../helpers/owner.ts";
import { personaKey } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";

let alice: TestNode;
beforeEach(() => void (alice = bootTestApp()));
afterEach(() => alice.close());

const bobKey = personaKey("bob", "signing").publicKeyMultibase;
const spellings = { svc: `svc:${bobKey}`, tulpa: `tulpa:${bobKey}`, ink: `ink:${bobKey}` } as const;
const request = { method: "discovery", context: "hi", profileSnapshot: { headline: "", skills: [], interests: [], openTo: [] } };
/** Bob's key, his id spelled `spelling`: ink/0.2 (`ink/sign`), which every wordmark verifies. */
const fromBob = (spelling: keyof typeof spellings, intent = "connection_request", payload: Record<string, unknown> = request) =>
  postIntent(alice, signedIntent("bob", alice, { protocol: "ink/0.2", from: spellings[spelling], intent, payload }));
const code = async (res: Response) => ({ status: res.status, code: res.status >= 400 ? (await json(res)).code : "accepted" });
const putPolicy = async (body: Record<string, unknown>) => expect((await asOwner(alice, "/api/svc/policy", { method: "PUT", body })).status).toBe(200);

describe("lists of agents compare canonical principals", () => {
  test("blockedDids: svc:<key> blocked refuses tulpa:<key> and ink:<key> too", async () => {
    await putPolicy({ blockedDids: [spellings.svc] });
    expect((await json(await asOwner(alice, "/api/svc/policy"))).blockedDids).toEqual([`key:${bobKey}`]);
    for (const s of ["svc", "tulpa", "ink"] as const) expect({ s, ...(await code(await fromBob(s))) }).toEqual({ s, status: 403, code: "sender_blocked" });
  });

  test("allowedDids and allowedMethods admit every spelling of the key they name", async () => {
    await putPolicy({ allowedDids: [spellings.tulpa] });
    expect(await code(await fromBob("svc"))).toEqual({ status: 202, code: "accepted" });
    alice.db.delete(connections).run();
    await putPolicy({ allowedMethods: ["svc:"] });
    expect((await json(await asOwner(alice, "/api/svc/policy"))).allowedMethods).toEqual(["key:"]);
    expect(await code(await fromBob("tulpa"))).toEqual({ status: 202, code: "accepted" });
    await putPolicy({ allowedMethods: ["did:web:"] });
    expect(await code(await fromBob("ink"))).toEqual({ status: 403, code: "block_method_not_in_user_allow_list" });
  });

  test("trustedDids: a trusted key is handled at full whichever spelling it sends", async () => {
    alice.db.insert(connections).values({ id: "c", principal: `key:${bobKey}`, agentId: spellings.svc, status: "connected", initiatedBy: "us", createdAt: 0, updatedAt: 0 }).run();
    await putPolicy({ trustedDids: [spellings.ink] });
    const res = await fromBob("svc", "ping", {});
    expect(res.status).toBe(200); // stored, not held for the owner
    expect((await json(res)).status).toBe("stored");
  });

  test("rule senders: a rule naming tulpa:<key> matches the key's messages sent as svc:<key>", async () => {
    alice.db.insert(connections).values({ id: "c", principal: `key:${bobKey}`, agentId: spellings.svc, status: "connected", initiatedBy: "us", createdAt: 0, updatedAt: 0 }).run();
    await putPolicy({ maxAutonomyLevel: "full" });
    expect((await asOwner(alice, "/api/svc/rules", { body: { name: "bob", match: { senders: [spellings.tulpa] }, action: { type: "label", labels: ["bob"] } } })).status).toBe(201);
    const { id } = await json(await fromBob("svc", "ping", {}));
    runAssistantJob(alice);
    expect((await json(await asOwner(alice, `/api/svc/inbox/${id}`))).labels).toEqual(["bob"]);
  });

  test("a policy row stored before (as typed) is read canonical: the block holds for the other spellings", async () => {
    alice.db.insert(ownerPolicy).values({ id: 1, maxAutonomyLevel: "draft_only", maxInboundRate: 10, acceptForeignAgents: true, blockedDidsJson: JSON.stringify([spellings.svc]), updatedAt: 0 }).run();
    expect(await code(await fromBob("tulpa"))).toEqual({ status: 403, code: "sender_blocked" });
    expect((await json(await asOwner(alice, "/api/svc/policy"))).blockedDids).toEqual([`key:${bobKey}`]);
  });
});

// Review of issues 12/21, defect 8: the API shows `key:z…`; every owner input that names an agent
// takes it too (one parser, domain/internal/principal-of.ts), as it takes svc:, tulpa: and ink:.
describe("every owner input naming an agent takes the canonical key:z… the API shows", () => {
  const canonical = `key:${bobKey}`;

  test("rule senders and the inbox's from filter", async () => {
    alice.db.insert(connections).values({ id: "c", principal: canonical, agentId: spellings.svc, status: "connected", initiatedBy: "us", createdAt: 0, updatedAt: 0 }).run();
    await putPolicy({ maxAutonomyLevel: "full" });
    expect((await asOwner(alice, "/api/svc/rules", { body: { name: "bob", match: { senders: [canonical] }, action: { type: "label", labels: ["bob"] } } })).status).toBe(201);
    const { id } = await json(await fromBob("tulpa", "ping", {}));
    runAssistantJob(alice);
    expect((await json(await asOwner(alice, `/api/svc/inbox/${id}`))).labels).toEqual(["bob"]);
    for (const path of ["/api/svc/inbox", "/api/svc/inbox/search"]) {
      for (const from of [canonical, spellings.svc, spellings.ink]) {
        expect({ path, from, ids: (await json(await asOwner(alice, `${path}?from=${encodeURIComponent(from)}`))).items.map((m: { id: string }) => m.id) }).toEqual({ path, from, ids: [id] });
      }
    }
    expect((await asOwner(alice, "/api/svc/rules", { body: { name: "x", match: { senders: ["key:zNotAKey"] }, action: { type: "label", labels: ["x"] } } })).status).toBe(400);
  });
});

describe("key:z… between two nodes", () => {
  let nodes: NetworkNode[] = [];
  afterEach(() => stopNodes(...nodes));

  test("an intent to key:z… reaches the agent; a connection by cardUrl with agentId key:z… is made; baseUrl with an unknown key:z… is a clear 400", async () => {
    const pair = await bootNetworkPair();
    const carol = await bootNetworkNode({ name: "carol", persona: "carol", clock: pair.clock });
    nodes = [pair.alice, pair.bob, carol];
    const { alice: a, bob: b } = pair;
    const key = (n: NetworkNode) => `key:${n.agentId!.slice(n.agentId!.indexOf(":") + 1)}`;
    expect((await asOwner(a, "/api/svc/connections", { body: { cardUrl: b.cardUrl, agentId: key(b), context: "hi" } })).status).toBe(202);
    await a.drainOutbox();
    const bobOwner = b.ctx({ kind: "owner", subject: "owner" });
    decidePending(bobOwner, listPending(bobOwner, {}).items[0]!.id, { decision: "approve" });
    await b.drainOutbox();
    const sent = await asOwner(a, "/api/svc/intents", { body: { to: key(b), intent: "ping", payload: {} } });
    expect(sent.status).toBe(202);
    await a.drainOutbox();
    expect(listInbox(bobOwner, { intent: "ping" }).items).toHaveLength(1);
    const unknown = await asOwner(a, "/api/svc/connections", { body: { baseUrl: carol.url, agentId: key(carol) } });
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).message).toContain("key:z… names a key");
  });
});
