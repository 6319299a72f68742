import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { api, freePort, signIn, startProcessNode, tfetch, waitFor, type ProcessNode } from "../helpers/network-process.ts";
import { runKith } from "../helpers/process.ts";
import { testCa, testTls } from "../helpers/tls.ts";

// Spawns kith processes: a longer per-test timeout than the suite's 5 s.
setDefaultTimeout(120_000);

/**
 * Three `kith serve` processes on loopback (issue 20): Carol keeps a mailbox, behind a TLS reverse
 * proxy (her public URL) the test controls; Alice is the home node, reached only through that
 * mailbox (KITH_MAILBOX_URL; nobody is given her address); Bob is a peer. Bob connects and sends a
 * sealed schedule_meeting and an ask, Alice answers; then the mailbox is killed and restarted with
 * an ack held in flight, and Alice is killed after committing a round and before its ack reached
 * the mailbox; messages sent while she is down arrive when she is back; every one exactly once.
 */
const work = mkdtempSync(join(tmpdir(), "kith-mbx-"));
const nodes: ProcessNode[] = [];
const proxy = reverseProxy();
afterAll(async () => {
  proxy.server.stop(true);
  await Promise.all(nodes.map((n) => n.running?.stop("SIGKILL")));
  rmSync(work, { recursive: true, force: true });
});

test("a home node without a public address receives through a mailbox, while offline and after coming back, exactly once across restarts of either side", async () => {
  const carol = await init("carol", proxy.base);
  const alice = await init("alice");
  const bob = await init("bob");
  proxy.target = carol.base;
  const mailboxUrl = `${proxy.base}/mailbox`;
  await Promise.all([startProcessNode(carol), startProcessNode(bob)]);
  // The mailbox node's owner grants it with the CLI while the node runs.
  const granted = await runKith(["mailbox", "grant", alice.agentId, "--data-dir", carol.dir, "--max-messages", "200"]);
  expect(granted.code).toBe(0);
  expect(granted.stdout).toContain(`KITH_MAILBOX_URL=${mailboxUrl}`);
  await startProcessNode(alice, { KITH_MAILBOX_URL: mailboxUrl });
  await Promise.all([signIn(alice), signIn(bob), signIn(carol)]);
  expect((await api(alice, "/policy", { maxInboundRate: 1000 }, "PUT")).status).toBe(200);

  // Peers learn only the mailbox: the card Alice signed, served there, names it as her endpoint.
  const cardUrl = `${mailboxUrl}/ink/v1/${encodeURIComponent(alice.agentId)}/agent.json`;
  const card = await waitFor("Alice's card at the mailbox", async () => {
    const res = await tfetch(cardUrl);
    return res.status === 200 ? await res.json() : undefined;
  });
  expect(card).toMatchObject({ agentId: alice.agentId, endpoint: `${mailboxUrl}/ink/v1/${alice.agentId}/intent` });
  expect(JSON.stringify(card)).not.toContain(String(alice.port));
  expect((await api(alice, "/mailbox")).body).toMatchObject({ url: mailboxUrl, cardUrl });

  // Bob connects by that card URL; Alice (draining) sees the request and accepts.
  expect((await api(bob, "/connections", { cardUrl, context: "Met at the meetup" })).status).toBe(202);
  const pending = await waitFor("Alice's pending connection request", async () => (await api(alice, "/pending")).body.items[0]);
  expect(pending).toMatchObject({ kind: "connection_request", message: { from: bob.agentId } });
  expect((await api(alice, `/pending/${pending.id}`, { decision: "approve" })).status).toBe(200);
  await waitFor("Bob sees the connection accepted", async () => (await api(bob, "/connections?status=connected")).body.items[0]);

  // A sealed schedule_meeting and an ask; Alice answers the ask; Bob sees it threaded.
  const meeting = (await api(bob, "/intents", { to: alice.agentId, intent: "schedule_meeting", payload: { proposedTimes: ["2026-12-01T10:00:00Z"], topic: "Kickoff", format: "video", urgency: "normal" } })).body;
  const ask = (await api(bob, "/intents", { to: alice.agentId, intent: "ask", payload: { question: "Can you share the agenda?" } })).body;
  const inbox = await waitFor("both intents at Alice", async () => {
    const items = (await api(alice, "/inbox")).body.items as Array<{ id: string; intent: string; sealed: boolean }>;
    return items.some((m) => m.id === meeting.id) && items.some((m) => m.id === ask.id) ? items : undefined;
  });
  expect(inbox.find((m) => m.id === meeting.id)).toMatchObject({ intent: "schedule_meeting", sealed: true });
  expect(proxy.seen.join("\n")).not.toContain("Kickoff"); // what passed the mailbox stayed sealed
  expect((await api(alice, `/inbox/${ask.id}/respond`, { payload: { answer: "Agenda attached" } })).status).toBe(202);
  const answer = await waitFor("Bob receives the answer", async () => (await api(bob, "/inbox/search?intent=ask_response")).body.items[0]);
  expect(answer).toMatchObject({ correlationId: ask.correlationId, inReplyTo: ask.id, payload: { answer: "Agenda attached" } });
  const bThreads = (await api(bob, "/conversations")).body.items as Array<{ id: string; correlationId: string }>;
  const bThread = (await api(bob, `/conversations/${bThreads.find((t) => t.correlationId === ask.correlationId)!.id}`)).body;
  expect(bThread.messages.map((m: { direction: string; intent: string }) => `${m.direction}:${m.intent}`)).toEqual(["outbound:ask", "inbound:ask_response"]);

  const sent: string[] = [];
  const ping = async (note: string) => {
    const res = await api(bob, "/intents", { to: alice.agentId, intent: "ping", payload: { note } });
    expect(res.status).toBe(202);
    sent.push(note);
  };
  const pings = async () => ((await api(alice, "/inbox?intent=ping&limit=200")).body.items as Array<{ payload: { note: string } }>).map((m) => m.payload.note);
  const allArrived = (what: string) => waitFor(what, async () => ((await pings()).length >= sent.length ? true : undefined), 30_000);
  // How the rounds are cut depends on timing (Bob's outbox delivers one by one): what is certain is
  // that the items of a round whose ack never arrived come back in a later round, as duplicates.
  const duplicates = (log: string) => drained(log).reduce((n, round) => n + Number(round.duplicates), 0);

  // The mailbox dies mid-drain: Alice committed a round, her ack is held on the way, the mailbox
  // is killed (the ack fails), and restarted: the round is drained again and acknowledged.
  proxy.holdAcks = true;
  for (const n of ["m1", "m2", "m3"]) await ping(n);
  await waitFor("Alice commits a round and sends its ack", async () => ((await pings()).length > 0 && proxy.heldAcks() > 0) || undefined);
  await carol.running!.stop("SIGKILL");
  proxy.releaseAcks();
  await startProcessNode(carol);
  await waitFor("the mailbox is empty again", async () => ((await api(carol, "/mailboxes")).body.items[0].messages === 0 ? true : undefined), 30_000);
  await allArrived("the rest of the round");
  // The round came again and was stored once (the log line follows the ack: wait for it).
  await waitFor("Alice's log of the repeated round", () => duplicates(alice.running!.stdout()) > 0 || undefined, 10_000);

  // Alice dies mid-drain: after committing a round, before her ack reaches the mailbox.
  proxy.holdAcks = true;
  for (const n of ["h1", "h2", "h3"]) await ping(n);
  await waitFor("Alice commits a round and sends its ack", async () => ((await pings()).length > sent.length - 3 && proxy.heldAcks() > 0) || undefined);
  await alice.running!.stop("SIGKILL");
  proxy.dropAcks(); // they never left the dead process
  // While she is down, messages wait at the mailbox (Bob's deliveries succeed: 202 queued).
  for (const n of ["o1", "o2"]) await ping(n);
  await waitFor("Bob's pings delivered to the mailbox", async () => ((await api(carol, "/mailboxes")).body.items[0].messages >= 5 ? true : undefined), 30_000);
  await startProcessNode(alice, { KITH_MAILBOX_URL: mailboxUrl });
  await allArrived("Alice back: the offline pings");
  await waitFor("the mailbox is empty again", async () => ((await api(carol, "/mailboxes")).body.items[0].messages === 0 ? true : undefined), 30_000);
  await waitFor("Alice's log of the repeated round", () => duplicates(alice.running!.stdout()) > 0 || undefined, 10_000);

  // Every accepted message arrived exactly once.
  const notes = await pings();
  expect([...notes].sort()).toEqual([...sent].sort());
  expect(new Set(notes).size).toBe(notes.length);
  const kept = (await api(carol, "/mailboxes")).body.items[0];
  expect(kept).toMatchObject({ agentId: alice.agentId, status: "active", messages: 0 });
  expect(kept.lastDrainAt).not.toBeNull();
});

/** The rounds a node's log reports (`mailbox: drained`). */
function drained(log: string): Array<Record<string, unknown>> {
  return log
    .split("\n")
    .filter((line) => line.includes('"mailbox: drained"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function init(name: string, publicUrl?: string): Promise<ProcessNode> {
  const port = freePort();
  const dir = join(work, name);
  const base = `https://localhost:${port}`;
  const email = `${name}@example.com`;
  const r = await runKith(["init", "--data-dir", dir, "--handle", name, "--display-name", name, "--public-url", publicUrl ?? base, "--owner-email", email]);
  if (r.code !== 0) throw new Error(`init ${name}: ${r.stderr}`);
  const agentId = r.stdout.match(/agent id:\s+(\S+)/)![1]!;
  const node: ProcessNode = { name, dir, port, base, agentId, cardUrl: `${publicUrl ?? base}/ink/v1/${encodeURIComponent(agentId)}/agent.json`, email, running: null, token: null };
  nodes.push(node);
  return node;
}

/**
 * Carol's TLS reverse proxy (her public URL): forwards everything; can hold the home node's acks
 * (then release them to whatever is behind, or drop them) and records the bodies it carried.
 */
function reverseProxy() {
  const held: Array<(forward: boolean) => void> = [];
  const state = {
    target: "",
    holdAcks: false,
    seen: [] as string[],
    base: "",
    heldAcks: () => held.length,
    releaseAcks: () => {
      state.holdAcks = false;
      for (const h of held.splice(0)) h(true);
    },
    dropAcks: () => {
      state.holdAcks = false;
      for (const h of held.splice(0)) h(false);
    },
    server: Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      tls: testTls(),
      async fetch(request: Request): Promise<Response> {
        const url = new URL(request.url);
        const body = request.method === "GET" ? undefined : await request.arrayBuffer();
        if (body) state.seen.push(new TextDecoder().decode(body));
        if (state.holdAcks && url.pathname.endsWith("/ack")) {
          const forward = await new Promise<boolean>((resolve) => held.push(resolve));
          if (!forward) return new Response(null, { status: 504 });
        }
        try {
          const headers = new Headers(request.headers);
          headers.delete("host");
          return await fetch(state.target + url.pathname + url.search, { method: request.method, headers, body, redirect: "manual", tls: { ca: testCa() } } as RequestInit);
        } catch {
          return new Response(null, { status: 502 });
        }
      },
    }),
  };
  state.base = `https://localhost:${state.server.port}`;
  return state;
}
