// Issue 21 "Fetches a stranger can trigger", first bullet, from the attacker's side: the
// first-contact card hint (`Link: <url>; rel="agent-card"`) is covered by no signature. A replay
// must fetch nothing, and a hint substituted by whoever delivers a captured request first must
// bind nothing.
import { describe, expect, test } from "bun:test";
import { connections, peerCards } from "../../src/db/schema/index.ts";
import { bootNetworkNode } from "../helpers/boot.ts";
import { stopAfterEach } from "../helpers/cleanup.ts";
import { fakeAgent } from "../helpers/discovery.ts";
import { postIntent, signedIntent } from "../helpers/ink.ts";
import { personaKey } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";
import { testTls } from "../helpers/tls.ts";

const keep = stopAfterEach();

const request = { intent: "connection_request", payload: { method: "discovery", context: "hi", profileSnapshot: { headline: "", skills: [], interests: [], openTo: [] } } };
const link = (url: string) => ({ link: `<${url}>; rel="agent-card"` });

describe("first-contact card hints", () => {
  test("a captured request replayed five times causes no fetch of its hint (one fetch, for the delivery that counted)", async () => {
    const bob = keep(await bootNetworkNode({ name: "bob" }));
    const hinted = keep(fakeAgent("hinted", "carol"));
    hinted.state.mode = "404"; // nothing usable there, so nothing is learned that would end first contact
    const req = signedIntent("carol", bob, request);
    expect((await postIntent(bob, req, { headers: link(hinted.cardUrl) })).status).toBe(202);
    expect(hinted.state.hits).toBe(1);
    for (let i = 0; i < 5; i++) {
      const res = await postIntent(bob, req, { headers: link(hinted.cardUrl) });
      expect((await json(res)).code).toBe("nonce_replay");
    }
    expect(hinted.state.hits).toBe(1);
  });

  test("a hint substituted on a captured request binds nothing: the substitute's key and address are not learned for the sender", async () => {
    const bob = keep(await bootNetworkNode({ name: "bob" }));
    // the substitute claims carol's id, lists carol's genesis key (so it "matches" the request) and acme's key; unsigned
    const substitute = keep(fakeAgent("evil", "carol", { extraKeys: ["acme"] }));
    const captured = signedIntent("carol", bob, request);
    expect((await postIntent(bob, captured, { headers: link(substitute.cardUrl) })).status).toBe(202);
    expect(substitute.state.hits).toBe(1);
    const principal = `key:${captured.envelope.from!.toString().slice(4)}`;
    expect(bob.db.select().from(peerCards).all().filter((p) => p.principal === principal && p.cardUrl !== null)).toEqual([]);
    expect(bob.db.select().from(connections).all().map((c) => c.cardUrl)).toEqual([null]);
    // acme's key does not speak for carol
    const forged = signedIntent("acme", bob, { from: captured.envelope.from as string, intent: "ping", payload: {} });
    const res = await postIntent(bob, forged);
    expect({ status: res.status, code: (await json(res)).code }).toEqual({ status: 401, code: "invalid_signature" });
  });
});

// Review of issues 12/21, defect 5: copies of one request sent at once (before the first records its
// nonce), each with another hint, and hints that are not the sender's INK card URL.
describe("first-contact card hints, concurrently and by shape", () => {
  test("five copies of one request sent at once, each with its own hint, fetch at most one", async () => {
    const bob = keep(await bootNetworkNode({ name: "bob" }));
    const hosts = Array.from({ length: 5 }, (_, i) => keep(fakeAgent(`hint${i}`, "carol")));
    for (const h of hosts) h.state.mode = "404";
    const req = signedIntent("carol", bob, request);
    const answers = await Promise.all(hosts.map((h) => postIntent(bob, req, { headers: link(h.cardUrl) })));
    expect(answers.map((r) => r.status).sort()).toEqual([202, 409, 409, 409, 409].sort());
    expect(hosts.reduce((n, h) => n + h.state.hits, 0)).toBeLessThanOrEqual(1);
  });

  test("a hint is fetched only when it is the sender's own INK card URL: no other path, no query, no other agent's card", async () => {
    const bob = keep(await bootNetworkNode({ name: "bob" }));
    const paths: string[] = [];
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: testTls(), fetch: (r) => (paths.push(new URL(r.url).pathname + new URL(r.url).search), new Response("no", { status: 404 })) });
    keep({ stop: () => server.stop(true) });
    const base = `https://any.kith.test:${server.port}`;
    const carol = `svc:${personaKey("carol", "signing").publicKeyMultibase}`;
    const acme = `svc:${personaKey("acme", "signing").publicKeyMultibase}`;
    const hints = [`${base}/anything/at/all`, `${base}/admin?x=1`, `${base}/ink/v1/${encodeURIComponent(carol)}/agent.json?x=1`, `${base}/ink/v1/${encodeURIComponent(acme)}/agent.json`, `${base}/ink/v1/${encodeURIComponent(carol)}/agent.json#f`];
    for (const hint of hints) expect((await postIntent(bob, signedIntent("carol", bob, request), { headers: link(hint) })).status).toBe(202);
    expect(paths).toEqual([]);
    expect((await postIntent(bob, signedIntent("carol", bob, request), { headers: link(`${base}/ink/v1/${encodeURIComponent(carol)}/agent.json`) })).status).toBe(202);
    expect(paths).toEqual([`/ink/v1/${encodeURIComponent(carol)}/agent.json`]);
  });
});
