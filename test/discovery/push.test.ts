import { afterEach, describe, expect, test } from "bun:test";
import { directoryPushes } from "../../src/db/schema/index.ts";
import { pushToDirectory } from "../../src/domain/discovery/push-to-directory.ts";
import { listDuePushes } from "../../src/domain/discovery/list-due-pushes.ts";
import { reconcileDirectoryPushes } from "../../src/domain/discovery/reconcile-directory-pushes.ts";
import { startDirectoryPusher } from "../../src/jobs/directory-pusher.ts";
import { verifyTransportSignature, decodeEd25519PublicKey } from "../../src/ink/index.ts";
import { bootNetworkNode, type TestNode } from "../helpers/boot.ts";
import { testClock } from "../helpers/clock.ts";
import { drainPushes, fakeAgent, LISTINGS_PATH } from "../helpers/discovery.ts";
import { asOwner } from "../helpers/owner.ts";
import { personaKey } from "../helpers/personas.ts";
import { json } from "../helpers/process.ts";

type Net = TestNode & { url: string; stop(): Promise<void> };
let nodes: Net[] = [];
let fakes: Array<{ stop(): unknown }> = [];
afterEach(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  for (const f of fakes) f.stop();
  nodes = [];
  fakes = [];
});

async function aliceWith(directories: string[]) {
  const alice = await bootNetworkNode({ name: "alice", clock: testClock(), discovery: { directories } });
  nodes.push(alice);
  return alice;
}
const pushes = (node: TestNode) => node.db.select().from(directoryPushes).all();

/** A fake directory: its card (carol) at /.well-known/ink/agent.json and the listing path answering `answer`. */
function fakeDirectory(answer: (req: Request, body: Record<string, unknown>) => Response | Promise<Response>) {
  const seen: Array<{ body: Record<string, unknown>; authorization: string | null; path: string }> = [];
  const dir = fakeAgent("fakedir", "carol", {
    listings: async (req) => {
      const body = (await req.json()) as Record<string, unknown>;
      seen.push({ body, authorization: req.headers.get("authorization"), path: new URL(req.url).pathname });
      return answer(req, body);
    },
  });
  fakes.push(dir);
  return { ...dir, seen };
}

describe("pushing the publication to directories", () => {
  test("each attempt is a fresh transport-signed request (new nonce and timestamp) by the active key, to the directory's agent id", async () => {
    let status = 503;
    const dir = fakeDirectory(() => Response.json({ status: "listed" }, { status }));
    const alice = await aliceWith([dir.base]);
    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    expect(await drainPushes(alice)).toEqual([{ kind: "retry", error: "HTTP 503", status: 503 }]);
    alice.clock.advance(10 * 60_000);
    status = 200;
    expect(await drainPushes(alice)).toEqual([{ kind: "delivered", status: 200, remoteStatus: "listed" }]);
    expect(dir.seen).toHaveLength(2);
    const [first, second] = dir.seen;
    expect(first!.body).toMatchObject({ protocol: "ink/0.1", type: "network.svc.directory_listing", action: "publish", from: alice.agentId, to: dir.agentId, cardUrl: alice.cardUrl });
    expect(second!.body.nonce).not.toBe(first!.body.nonce);
    expect(second!.body.timestamp).not.toBe(first!.body.timestamp);
    const signature = /^INK-Ed25519 ([A-Za-z0-9_-]{86}) keyId=sig-alice-0$/.exec(second!.authorization!)![1];
    const key = decodeEd25519PublicKey(personaKey("alice", "signing").publicKeyMultibase)!;
    expect(verifyTransportSignature({ method: "POST", path: LISTINGS_PATH, recipientDid: dir.agentId, body: second!.body, timestamp: String(second!.body.timestamp) }, signature, key)).toBe(true);
    expect(pushes(alice)[0]).toMatchObject({ status: "delivered", attempts: 2, lastStatus: 200, lastError: null, remoteStatus: "listed" });
  });

  test("retries: network errors and 408/429/5xx back off (Retry-After honoured), the state shows attempts, next attempt and the error", async () => {
    const dir = fakeDirectory(() => new Response(JSON.stringify({ error: "rate_limited", code: "rate_limited", message: "slow down" }), { status: 429, headers: { "retry-after": "120", "content-type": "application/json" } }));
    const alice = await aliceWith([dir.base, "https://nowhere.kith.test:1"]);
    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    const outcomes = await drainPushes(alice);
    expect(outcomes.map((o) => o.kind)).toEqual(["retry", "retry"]);
    const state = await json(await asOwner(alice, "/api/svc/discovery"));
    const [limited, unreachable] = state.directories;
    expect(limited).toMatchObject({ directory: dir.base, action: "publish", state: "queued", attempts: 1, lastStatus: 429, lastError: "rate_limited: slow down" });
    expect(Date.parse(limited.nextAttemptAt) - alice.clock.now()).toBeGreaterThanOrEqual(120_000);
    expect(unreachable).toMatchObject({ directory: "https://nowhere.kith.test:1", state: "queued", attempts: 1, lastStatus: null });
    expect(unreachable.lastError).toContain("network_error");
    expect(Date.parse(unreachable.nextAttemptAt)).toBeGreaterThan(alice.clock.now());
    expect(listDuePushes(alice.ctx())).toEqual([]); // nothing due until the backoff passes
  });

  test("a directory that could not resolve our card (INK's generic unresolvable_sender_key, 401) is asked again later", async () => {
    const dir = fakeDirectory(() => Response.json({ error: "unresolvable_sender_key", code: "unresolvable_sender_key", protocol: "ink/0.1", message: "the sender's keys could not be resolved" }, { status: 401 }));
    const alice = await aliceWith([dir.base]);
    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    expect(await drainPushes(alice)).toEqual([{ kind: "retry", error: "unresolvable_sender_key: the sender's keys could not be resolved", status: 401 }]);
  });

  test("a refusal (4xx) fails the push with the directory's code; an unusable directory fails too", async () => {
    const refusing = fakeDirectory(() => Response.json({ error: "discovery_not_enabled", code: "discovery_not_enabled", message: "opt in first" }, { status: 403 }));
    const notKith = fakeAgent("plain", "bob");
    fakes.push(notKith);
    notKith.state.mode = "404"; // no card alias: not a directory
    const alice = await aliceWith([refusing.base, notKith.base]);
    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    await drainPushes(alice);
    const [refused, broken] = (await json(await asOwner(alice, "/api/svc/discovery"))).directories;
    expect(refused).toMatchObject({ state: "failed", attempts: 1, lastStatus: 403, lastError: "discovery_not_enabled: opt in first", nextAttemptAt: null });
    expect(broken).toMatchObject({ state: "failed", attempts: 1 });
    expect(broken.lastError).toContain("HTTP 404");
  });

  test("a directory given by its card URL; the latest action supersedes a queued one and an attempt in flight cannot settle it", async () => {
    const dir = fakeDirectory((_req, body) => Response.json({ status: body.action === "publish" ? "listed" : "delisted" }));
    const alice = await aliceWith([dir.cardUrl]);
    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    const [stale] = listDuePushes(alice.ctx());
    await asOwner(alice, "/api/svc/discovery/unpublish", { method: "POST" });
    // the publish attempt that was already running settles on its own row id: the unpublish stays queued
    expect(await pushToDirectory(alice.ctx(), stale!)).toMatchObject({ kind: "delivered", remoteStatus: "listed" });
    expect(pushes(alice)[0]).toMatchObject({ action: "unpublish", status: "queued", attempts: 0 });
    expect(await drainPushes(alice)).toEqual([{ kind: "delivered", status: 200, remoteStatus: "delisted" }]);
    expect(dir.seen.map((s) => s.body.action)).toEqual(["publish", "unpublish"]);
    expect(dir.seen[1]!.path).toBe(LISTINGS_PATH);
  });

  test("a directory configured after publishing gets the current state at start (reconcile); the job drains it", async () => {
    const dir = fakeDirectory(() => Response.json({ status: "listed" }));
    const alice = await aliceWith([]);
    await asOwner(alice, "/api/svc/discovery/publish", { method: "POST" });
    const configured = () => ({ ...alice.ctx(), directory: { ...alice.discovery, directories: [dir.base] } });
    expect(reconcileDirectoryPushes(configured())).toBe(1);
    expect(reconcileDirectoryPushes(configured())).toBe(0);
    const job = startDirectoryPusher({ ctx: configured, log: alice.ctx().log });
    for (let i = 0; i < 200 && pushes(alice)[0]?.status !== "delivered"; i++) await Bun.sleep(10);
    await job.stop();
    expect(pushes(alice)[0]).toMatchObject({ directory: dir.base, action: "publish", status: "delivered" });
  });
});
