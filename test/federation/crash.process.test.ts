import { Database } from "bun:sqlite";
import { afterAll, afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSignedEnvelope, formatTimestamp, prepareOutbound } from "../../src/ink/index.ts";
import { api, initProcessNode, signIn, startProcessNode, tfetch, waitFor, type ProcessNode } from "../helpers/network-process.ts";
import { personaKey } from "../helpers/personas.ts";
import { testTls } from "../helpers/tls.ts";

// Spawns kith processes (or compiles the binary): a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(60_000);

/**
 * DESIGN: nothing acknowledged is lost on a crash. A node process receives a stream of signed
 * intents from a connected peer (this test, serving the peer's card over TLS) and is killed with
 * SIGKILL in the middle; after a restart every intent that got a 2xx is in its inbox, once, and its
 * nonce is still spent: the same bytes sent again are refused as a replay (INK §8; the replay check
 * is answered from memory rebuilt from the nonce table at start, src/db/nonce-index.ts).
 */
const work = mkdtempSync(join(tmpdir(), "kith-crash-"));
let node: ProcessNode | null = null;
let cards: ReturnType<typeof Bun.serve> | null = null;
afterEach(async () => {
  await node?.running?.stop("SIGKILL");
  cards?.stop(true);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

// 1,300: past JOBS_PER_CHECKPOINT group-commit writes, so the WAL checkpointer's Worker is copying
// frames into the database file while the node is killed (src/db/checkpointer.ts).
for (const killAfter of [150, 1_300])
test(`SIGKILL during a stream of intents (after ${killAfter} answers): every intent that got a 2xx is in the inbox after restart`, async () => {
  const bob = personaKey("bob", "signing");
  const bobId = `svc:${bob.publicKeyMultibase}`;
  cards = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: testTls(),
    fetch: () =>
      Response.json({
        protocol: "ink/0.1", agentId: bobId, handle: "bob", displayName: "Bob",
        endpoint: `https://localhost:${cards!.port}/ink/v1/${bobId}/intent`, publicKeyMultibase: bob.publicKeyMultibase,
        capabilities: { intentsAccepted: ["ping"], intentsSent: ["ping"] }, availability: { timezone: "UTC" },
        keys: { signing: [{ keyId: bob.keyId, algorithm: "Ed25519", publicKeyMultibase: bob.publicKeyMultibase, status: "active", validFrom: "2026-01-01T00:00:00.000Z" }], encryption: [] },
      }),
  });
  const runDir = join(work, `after-${killAfter}`);
  mkdirSync(runDir);
  node = await initProcessNode(runDir, "alice");
  // Bob is a connection of Alice's, and her per-sender hourly budget is raised for a stream.
  const db = new Database(join(node.dir, "kith.db"));
  db.query("INSERT INTO connections (id, principal, agent_id, card_url, status, initiated_by, created_at, updated_at) VALUES ('con_bob', ?, ?, ?, 'connected', 'us', 0, 0)").run(
    `key:${bob.publicKeyMultibase}`, bobId, `https://localhost:${cards.port}/ink/v1/${encodeURIComponent(bobId)}/agent.json`,
  );
  db.query("INSERT INTO owner_policy (id, max_autonomy_level, max_inbound_rate, accept_foreign_agents, updated_at) VALUES (1, 'draft_only', 1000000, 1, 0)").run();
  db.close();
  // Requests come from many client addresses behind a (simulated) proxy, so the per-IP limit
  // of the INK endpoint does not cut the stream short.
  await startProcessNode(node, { KITH_TRUST_PROXY: "1" });

  const endpoint = `${node.base}/ink/v1/${node.agentId}/intent`;
  let seq = 0;
  const sentRequests = new Map<string, { authorization: string; body: string; from: string }>();
  const post = (r: { authorization: string; body: string; from: string }) =>
    tfetch(endpoint, { method: "POST", headers: { "content-type": "application/json", authorization: r.authorization, "x-forwarded-for": r.from }, body: r.body });
  const send = async (): Promise<{ id: string; status: number | "error" }> => {
    const n = ++seq;
    const now = formatTimestamp(Date.now());
    const built = buildSignedEnvelope(
      { protocol: "ink/0.1", id: `stream-${n}`, correlationId: `stream-${n}`, createdAt: now, from: bobId, to: node!.agentId, intent: "ping", payload: { note: `#${n}` }, timestamp: now, nonce: `streamnonce${String(n).padStart(8, "0")}x`, signingKeyId: bob.keyId },
      bob.privateKey,
      "svc",
    );
    if (!built.ok) throw new Error(built.reason);
    const req = prepareOutbound({ envelope: built.envelope, recipient: { agentId: node!.agentId, endpoint }, secretKey: bob.privateKey, keyId: bob.keyId, wordmark: "svc" });
    if (!req.ok) throw new Error(req.reason);
    const request = { authorization: req.authorization, body: req.bodyText, from: `10.0.${n >> 8}.${n & 255}` };
    sentRequests.set(`stream-${n}`, request);
    try {
      const res = await post(request);
      return { id: `stream-${n}`, status: res.status };
    } catch {
      return { id: `stream-${n}`, status: "error" };
    }
  };

  const results: Array<{ id: string; status: number | "error" }> = [];
  let acked = 0;
  let killed = false;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      // Each worker keeps sending until it sees the node gone (a connection error).
      for (let i = 0; i < 1000; i++) {
        const r = await send();
        results.push(r);
        if (r.status === "error") return;
        if (r.status !== 202) throw new Error(`unexpected answer ${r.status} while streaming`);
        if (r.status === 202 && ++acked >= killAfter && !killed) {
          killed = true;
          node!.running!.proc.kill("SIGKILL"); // mid-stream: the other workers' requests are in flight
        }
      }
    }),
  );
  await node.running!.proc.exited;
  const acknowledged = results.filter((r) => typeof r.status === "number" && r.status >= 200 && r.status < 300).map((r) => r.id);
  expect(acknowledged.length).toBeGreaterThanOrEqual(killAfter);
  expect(results.some((r) => r.status === "error")).toBe(true); // the kill really cut requests off

  await startProcessNode(node, { KITH_TRUST_PROXY: "1" });
  await signIn(node);
  const stored = new Set<string>();
  let cursor: string | null = null;
  do {
    const page: { items: Array<{ id: string }>; nextCursor: string | null } = (await api(node, `/inbox?intent=ping&limit=200${cursor ? `&cursor=${cursor}` : ""}`)).body;
    for (const m of page.items) {
      expect(stored.has(m.id)).toBe(false); // stored once
      stored.add(m.id);
    }
    cursor = page.nextCursor;
  } while (cursor);
  const lost = acknowledged.filter((id) => !stored.has(id));
  expect(lost).toEqual([]);
  // The last acknowledged intents (committed in the last batches before the kill) and a few early
  // ones, replayed byte for byte: every nonce survived the kill.
  for (const id of [...acknowledged.slice(-8), ...acknowledged.slice(0, 2)]) {
    const res = await post(sentRequests.get(id)!);
    expect({ id, status: res.status, error: ((await res.json()) as { error?: string }).error }).toEqual({ id, status: 409, error: "nonce_replay" });
  }
  await waitFor("health after restart", async () => (await tfetch(`${node!.base}/health`)).status === 200);
}, 90_000);
