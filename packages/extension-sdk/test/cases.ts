// The SDK's behaviour tests, written once and run twice: under Bun (sdk.test.ts) and under Node 20
// (node.process.test.ts bundles this file with node-runner.ts and runs it with `node`). They use
// only node:assert and the fake node, so both runtimes execute exactly the same checks.
import assert from "node:assert/strict";
import { createHash, sign, verify } from "node:crypto";
import {
  AuthError,
  EMPTY_BODY_SHA256,
  KithClient,
  NetworkError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  RequestError,
  ServerError,
  canonicalString,
  decodeEd25519Multibase,
  decodeToken,
  generateKeyPair,
  memoryCursorStore,
  publicKeyOf,
  signRequest,
  verifyAuditChain,
  verifyToken,
  type Gap,
} from "../src/index.ts";
import { FakeNode, extensionKeyPair, publicKeyFromRaw, seedToKeyObject } from "./fake-node.ts";

export type Case = [name: string, run: () => Promise<void>];
export const cases: Case[] = [];
const test = (name: string, run: () => Promise<void>) => void cases.push([name, run]);

async function setup(configure?: (node: FakeNode) => void, clientOptions: Record<string, unknown> = {}) {
  const key = extensionKeyPair();
  const node = new FakeNode(key.publicKey);
  configure?.(node);
  await node.start();
  const sleeps: number[] = [];
  const client = new KithClient({
    baseUrl: node.baseUrl,
    installationId: node.installationId,
    privateKey: key.seed,
    sleep: async (ms: number) => void sleeps.push(ms),
    ...clientOptions,
  });
  return { node, client, key, sleeps, [Symbol.asyncDispose]: () => node.stop() };
}

async function using<T>(s: Awaited<ReturnType<typeof setup>>, run: (s: Awaited<ReturnType<typeof setup>>) => Promise<T>): Promise<T> {
  try {
    return await run(s);
  } finally {
    await s.node.stop();
  }
}

async function rejects<E extends Error>(p: Promise<unknown>, cls: new (...a: never[]) => E): Promise<E> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${String(err)}`);
    return err as E;
  }
  assert.fail(`expected ${cls.name}, but it resolved`);
}

// The worked example of docs/extensions.md "Signing a request": fixed seed, nonce, time and body.
export const WORKED = {
  seedHex: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
  method: "POST",
  pathWithQuery: "/ext/v1/intents",
  nonce: "6f1c0b6e-4d6c-4c8e-9a51-0f0e6d7c2b11",
  timestamp: "2026-11-24T21:00:00.000Z",
  body: '{"to":"c-inner","intent":"ping","payload":{"note":"hello"}}',
};

test("canonical string: five lines, body hash, raw target with query", async () => {
  const text = await canonicalString({ ...WORKED, pathWithQuery: "/ext/v1/events?since=12&limit=50" });
  const hash = createHash("sha256").update(WORKED.body).digest("hex");
  assert.equal(text, `POST\n/ext/v1/events?since=12&limit=50\n${WORKED.nonce}\n${WORKED.timestamp}\n${hash}`);
  const empty = await canonicalString({ method: "get", pathWithQuery: "/ext/v1/identity", nonce: "n", timestamp: "t" });
  assert.equal(empty, `GET\n/ext/v1/identity\nn\nt\n${EMPTY_BODY_SHA256}`);
  await assert.rejects(canonicalString({ method: "GET", pathWithQuery: "/a\n/b", nonce: "n", timestamp: "t" }));
});

test("signRequest: the signature verifies under node:crypto and equals its own Ed25519 signature", async () => {
  const seed = Buffer.from(WORKED.seedHex, "hex");
  const headers = await signRequest(WORKED, new Uint8Array(seed));
  const text = await canonicalString(WORKED);
  const expected = sign(null, Buffer.from(text), seedToKeyObject(seed)).toString("base64url");
  assert.equal(headers["X-Extension-Signature"], expected);
  assert.equal(headers["X-Request-Nonce"], WORKED.nonce);
  const pub = decodeEd25519Multibase(await publicKeyOf(new Uint8Array(seed)));
  assert.ok(pub && verify(null, Buffer.from(text), publicKeyFromRaw(pub), Buffer.from(expected, "base64url")));
  // Fresh nonce and timestamp when not given.
  const a = await signRequest({ method: "GET", pathWithQuery: "/x" }, new Uint8Array(seed));
  const b = await signRequest({ method: "GET", pathWithQuery: "/x" }, new Uint8Array(seed));
  assert.notEqual(a["X-Request-Nonce"], b["X-Request-Nonce"]);
  assert.ok(!Number.isNaN(Date.parse(a["X-Request-Timestamp"])));
});

test("docs/extensions.md §4 worked example: the SDK signs exactly the documented bytes", async () => {
  const seed = Uint8Array.from(Buffer.from("28359fbc33fd1baf578cdb1627ad153da6d521fd320427c46767a165f903dea2", "hex"));
  assert.equal(await publicKeyOf(seed), "z6MkpxM2d6d34RFU7wUQp7s2j2j1CChjTgtTN88MzF6TmwjL");
  const common = { nonce: "3f2a6c1e-8d4b-4e7a-9c0f-5b1d2e3a4f60", timestamp: "2026-03-01T12:00:00.000Z" };
  const get = { ...common, method: "GET", pathWithQuery: "/ext/v1/events?since=42&limit=10" };
  assert.equal(await canonicalString(get), `GET\n/ext/v1/events?since=42&limit=10\n${common.nonce}\n${common.timestamp}\n${EMPTY_BODY_SHA256}`);
  assert.equal((await signRequest(get, seed))["X-Extension-Signature"], "Cg8yEC9j-giveoZki34dbMXQl5vFdDlPralCdfKu9rtaEp73WA2FVnOyXTgHzkp0-wooHlIuk-Sedl85X87hAQ");
  const post = { ...common, method: "POST", pathWithQuery: "/ext/v1/intents", body: '{"to":"con_01","intent":"ping","payload":{"note":"hi"}}' };
  assert.ok((await canonicalString(post)).endsWith("\n5e7afabe5b60013f069760a00954f5ab0d340066fa116e1b6e66a3f651565f1d"));
  assert.equal((await signRequest(post, seed))["X-Extension-Signature"], "7e8vV0Lqo63fuHGZr4YiThblan2ERGfBkfhERbytU3Ccx3t54vN7K8gIPEJ_Avm8Sy9e3GwvQP-Kjlp_NTlgBw");
});

test("generateKeyPair: the base64url seed signs what its multibase key verifies", async () => {
  const pair = await generateKeyPair();
  assert.match(pair.publicKeyMultibase, /^z6Mk/);
  assert.equal(await publicKeyOf(pair.privateKey), pair.publicKeyMultibase);
  await assert.rejects(signRequest({ method: "GET", pathWithQuery: "/" }, "not-a-seed"), TypeError);
});

test("first call renews the token (signed, no Authorization), then the request passes all seven checks", async () => {
  await using(await setup(), async ({ node, client }) => {
    const id = await client.identity();
    assert.equal(id.agentId, node.agentId);
    assert.equal(node.renewals, 1);
    assert.equal(node.seen[0]?.target, "/ext/v1/token");
    assert.equal(node.seen[0]?.auth, null);
    assert.ok(node.seen[1]?.auth?.startsWith("Bearer "));
    assert.ok(await verifyToken(client.tokens.current as string, [node.agentPublicKeyMultibase]));
    assert.equal(await verifyToken(client.tokens.current as string, [(await generateKeyPair()).publicKeyMultibase]), null);
    const payload = decodeToken(client.tokens.current as string);
    assert.equal(payload?.installationId, node.installationId);
    assert.deepEqual(payload?.layers, ["inner", "active"]);
  });
});

test("token renewal is single-flight: ten concurrent calls with an expired token renew once", async () => {
  await using(await setup(), async ({ node, client }) => {
    const old = node.issueToken(Date.now() - 5 * 3600_000);
    const fresh = new KithClient({ ...client.options, token: old });
    const results = await Promise.all(Array.from({ length: 10 }, () => fresh.identity()));
    assert.equal(results.length, 10);
    assert.equal(node.renewals, 1);
    assert.equal(fresh.tokens.renewals, 1);
  });
});

test("a token close to expiry (under 10% of its lifetime) is renewed before use", async () => {
  await using(await setup(), async ({ node, client }) => {
    const nearly = node.issueToken(Date.now() - 3.7 * 3600_000);
    const c = new KithClient({ ...client.options, token: nearly });
    await c.identity();
    assert.equal(node.renewals, 1);
    const good = node.issueToken();
    const d = new KithClient({ ...client.options, token: good });
    await d.identity();
    assert.equal(node.renewals, 1);
  });
});

test("401 token_revoked (owner narrowed the grant): renew once and repeat; the narrower grant applies", async () => {
  await using(await setup(), async ({ node, client }) => {
    await client.connections.list();
    node.permissions = ["layers:read"];
    node.issueToken(); // the owner's PUT …/permissions rotates the stored hash
    const layers = await client.layers.list();
    assert.equal(layers.assignments.length, 2);
    assert.equal(node.renewals, 2);
    const err = await rejects(client.connections.list(), PermissionError);
    assert.equal(err.required, "connections:list");
    assert.equal(err.code, "permission_missing");
  });
});

test("401 token_expired is renewed through the store when another process already renewed", async () => {
  await using(await setup(), async ({ node, client }) => {
    const stale = node.issueToken(Date.now() - 3 * 3600_000);
    const shared = { value: null as string | null };
    const store = { load: () => shared.value, save: (t: string) => void (shared.value = t) };
    const a = new KithClient({ ...client.options, token: null, tokenStore: store });
    await a.identity();
    assert.equal(node.renewals, 1);
    const b = new KithClient({ ...client.options, token: stale, tokenStore: store });
    await b.identity(); // stale → revoked; the store has a's fresh token
    assert.equal(node.renewals, 1);
  });
});

test("after uninstall every call is AuthError installation_inactive, and renewal fails the same way", async () => {
  await using(await setup(), async ({ node, client }) => {
    await client.identity();
    node.active = false;
    const err = await rejects(client.identity(), AuthError);
    assert.equal(err.code, "installation_inactive");
    assert.equal(err.status, 401);
    await rejects(client.renewToken(), AuthError);
  });
});

test("GET retries 503 and a dropped connection with a new nonce and signature on every attempt", async () => {
  await using(await setup(), async ({ node, client, sleeps }) => {
    await client.identity();
    node.faults.push({ status: 503 }, { status: 0, drop: true });
    const before = node.seen.length;
    await client.profile();
    const attempts = node.seen.slice(before);
    assert.equal(attempts.length, 3);
    assert.equal(new Set(attempts.map((s) => s.nonce)).size, 3);
    assert.equal(new Set(attempts.map((s) => s.signature)).size, 3);
    assert.equal(sleeps.length, 2);
    assert.ok((sleeps[1] as number) > 0);
  });
});

test("401 nonce_replayed (a lower layer re-sent the bytes) is signed again for a GET, never for a bare POST", async () => {
  await using(await setup((n) => n.permissions.push("agent.chat")), async ({ node, client }) => {
    await client.identity();
    node.faults.push({ status: 401, body: { error: "nonce_replayed" } });
    await client.profile();
    node.faults.push({ status: 401, body: { error: "nonce_replayed" } });
    const err = await rejects(client.agent.chat("x"), AuthError);
    assert.equal(err.code, "nonce_replayed");
  });
});

test("retries stop after maxRetries: ServerError, then NetworkError when nothing answers", async () => {
  await using(await setup(), async ({ node, client }) => {
    await client.identity();
    node.faults.push({ status: 500 }, { status: 500 }, { status: 502, body: { error: "bad_gateway" } });
    const err = await rejects(client.profile(), ServerError);
    assert.equal(err.code, "bad_gateway");
    node.faults.push({ status: 0, drop: true }, { status: 0, drop: true }, { status: 0, drop: true });
    const net = await rejects(client.profile(), NetworkError);
    assert.equal(net.status, 0);
  });
});

test("a request that outlives timeoutMs fails with NetworkError timeout", async () => {
  await using(await setup(undefined, { timeoutMs: 50, maxRetries: 0 }), async ({ node, client }) => {
    await client.identity();
    node.faults.push({ status: 200, delayMs: 400 });
    const err = await rejects(client.profile(), NetworkError);
    assert.equal(err.code, "timeout");
  });
});

test("429 honours Retry-After; RateLimitError carries retryAfter when retries run out", async () => {
  await using(await setup(), async ({ node, client, sleeps }) => {
    await client.identity();
    node.faults.push({ status: 429, body: { error: "rate_limited" }, headers: { "retry-after": "2" } });
    await client.profile();
    assert.deepEqual(sleeps, [2000]);
    node.faults.push(...Array.from({ length: 3 }, () => ({ status: 429, headers: { "retry-after": "1" } })));
    const err = await rejects(client.profile(), RateLimitError);
    assert.equal(err.retryAfter, 1);
    node.faults.push({ status: 429, headers: { "retry-after": "3600" } });
    const long = await rejects(client.profile(), RateLimitError);
    assert.equal(long.retryAfter, 3600);
  });
});

test("POST /intents: a lost answer is retried with the same Idempotency-Key and sends once", async () => {
  await using(await setup(), async ({ node, client }) => {
    await client.identity();
    node.faults.push({ status: 503, after: true });
    const before = node.seen.length;
    const r = await client.intents.send({ to: "c-inner", intent: "ping", payload: { note: "hi" } });
    assert.equal(r.status, "queued");
    assert.equal(node.intentsSent.length, 1);
    const posts = node.seen.slice(before).filter((s) => s.target === "/ext/v1/intents");
    assert.equal(posts.length, 2);
    assert.ok(posts[0]?.idempotencyKey);
    assert.equal(posts[0]?.idempotencyKey, posts[1]?.idempotencyKey);
    assert.notEqual(posts[0]?.nonce, posts[1]?.nonce);
  });
});

test("an intent above the granted tier is a result: pending_approval with an approvalId", async () => {
  await using(await setup(), async ({ client }) => {
    const r = await client.intents.send({ to: "c-active", intent: "ask", payload: { question: "coffee?" } });
    assert.equal(r.status, "pending_approval");
    assert.ok(typeof r.approvalId === "string");
    const undeclared = await rejects(client.intents.send({ to: "c-active", intent: "opportunity", payload: {} }), PermissionError);
    assert.equal(undeclared.code, "intent_not_declared");
  });
});

test("agent.chat (not idempotent) is not retried on 503", async () => {
  await using(await setup((n) => n.permissions.push("agent.chat")), async ({ node, client }) => {
    assert.equal((await client.agent.chat("hi")).reply, "echo: hi");
    node.faults.push({ status: 503 });
    await rejects(client.agent.chat("again"), ServerError);
    assert.equal(node.faults.length, 0);
    assert.equal(node.seen.filter((s) => s.target === "/ext/v1/agent/chat").length, 2);
  });
});

test("typed errors: 404 outside the granted layers, 403 with the missing permission, 400 RequestError", async () => {
  await using(await setup(), async ({ client }) => {
    assert.equal((await client.connections.get("c-inner")).layer, "inner");
    const nf = await rejects(client.connections.get("c-symp"), NotFoundError);
    assert.equal(nf.status, 404);
    await rejects(client.layers.get("c-symp"), NotFoundError);
    const perm = await rejects(client.clusters(), PermissionError);
    assert.equal(perm.required, "graph:read:clusters:summary");
    await rejects(client.bridges(), PermissionError);
    const dec = await client.decaying();
    assert.deepEqual(dec.decaying.map((c) => c.contactId).sort(), ["c-active", "c-inner"]);
    assert.equal((await client.health()).layers?.length, 2);
    const bad = await rejects(client.events.list({ since: 999 }), RequestError);
    assert.equal(bad.code, "since_in_future");
  });
});

test("every method signs its exact target: query strings and escaped ids verify at the node", async () => {
  await using(await setup(), async ({ node, client }) => {
    await rejects(client.connections.get("a b/c?d"), NotFoundError);
    assert.equal(node.seen.at(-1)?.target, "/ext/v1/connections/a%20b%2Fc%3Fd");
    await client.audit.list({ limit: 5, offset: 0 });
    assert.equal(node.seen.at(-1)?.target, "/ext/v1/audit?limit=5&offset=0");
    assert.equal(node.seen.at(-1)?.status, 200);
  });
});

test("a base URL with a path prefix is kept and signed", async () => {
  await using(await setup(), async ({ node, client }) => {
    const prefixed = new KithClient({ ...client.options, baseUrl: `${node.baseUrl}/kith/` });
    await rejects(prefixed.identity(), AuthError).catch(() => undefined);
    assert.equal(node.seen.at(-1)?.target, "/kith/ext/v1/token");
  });
});

test("events.stream: persisted cursor, at-least-once across restarts, dedupe, untilIdle", async () => {
  await using(await setup(), async ({ node, client }) => {
    for (let i = 0; i < 5; i++) node.addEvent(i % 2 ? "intent.status_changed" : "relationship.health_changed", { i });
    const store = memoryCursorStore({ streamId: null, since: 0 });
    const got: number[] = [];
    for await (const e of client.events.stream({ cursorStore: store, limit: 2, untilIdle: true })) got.push(e.seq);
    assert.deepEqual(got, [1, 2, 3, 4, 5]);
    assert.deepEqual(store.cursor, { streamId: "st_one", since: 5 });
    node.addEvent("approval.resolved");
    node.addEvent("approval.resolved");
    // Stop after the first event of a page: the cursor stays, the page comes again next run.
    for await (const e of client.events.stream({ cursorStore: store, limit: 2, untilIdle: true })) {
      assert.equal(e.seq, 6);
      break;
    }
    assert.equal(store.cursor?.since, 5);
    const again: number[] = [];
    for await (const e of client.events.stream({ cursorStore: store, untilIdle: true, kinds: ["approval.*"] })) again.push(e.seq);
    assert.deepEqual(again, [6, 7]);
    assert.ok(node.seen.some((s) => s.target.includes("kinds=approval.*")));
  });
});

test("events.stream reports gaps: pruned events, a changed streamId, a cursor in the future", async () => {
  await using(await setup(), async ({ node, client }) => {
    node.oldestAvailable = 10;
    node.addEvent("connection.added");
    const gaps: Gap[] = [];
    const store = memoryCursorStore({ streamId: "st_one", since: 3 });
    const seqs: number[] = [];
    for await (const e of client.events.stream({ cursorStore: store, untilIdle: true, onGap: (g) => void gaps.push(g) })) seqs.push(e.seq);
    assert.deepEqual(seqs, [10]);
    assert.deepEqual([...gaps], [{ reason: "since_before_retention", from: 4, to: 9, streamId: "st_one" }]);
    // Restored from a backup: new streamId, the old cursor is ahead of the new stream.
    node.streamId = "st_two";
    node.events = [];
    node.oldestAvailable = 1;
    node.addEvent("connection.added");
    gaps.length = 0;
    const after: number[] = [];
    for await (const e of client.events.stream({ cursorStore: store, untilIdle: true, onGap: (g) => void gaps.push(g) })) after.push(e.seq);
    assert.deepEqual(gaps.map((g) => g.reason), ["since_in_future"]);
    assert.deepEqual(store.cursor, { streamId: "st_two", since: 1 });
    // Same cursor number but another stream: stream_changed.
    node.streamId = "st_three";
    node.addEvent("connection.added");
    gaps.length = 0;
    for await (const _ of client.events.stream({ cursorStore: store, untilIdle: true, onGap: (g) => void gaps.push(g) })) break;
    assert.equal(gaps[0]?.reason, "stream_changed");
  });
});

test("events.stream polls after an empty page, waiting the node's Retry-After, and stops on abort", async () => {
  const controller = new AbortController();
  const waits: number[] = [];
  await using(await setup(), async ({ node, client }) => {
    const stream = client.events.stream({
      since: 0,
      signal: controller.signal,
      minPollMs: 1000,
      sleep: async (ms) => {
        waits.push(ms);
        if (waits.length === 1) node.addEvent("connection.added");
        else controller.abort();
      },
    });
    const got: string[] = [];
    for await (const e of stream) got.push(e.kind);
    assert.deepEqual(got, ["connection.added"]);
    assert.deepEqual(waits, [5000, 5000]);
  });
});

test("audit: the chain from the node verifies (hashes and agent signatures); tampering is caught", async () => {
  await using(await setup(), async ({ node, client }) => {
    for (let i = 0; i < 205; i++) node.appendAudit("delegation.used", { i });
    const result = await client.audit.verifyChain();
    assert.deepEqual(result.ok && result.count, 205);
    const all = await client.audit.all();
    const tampered = all.map((e) => ({ ...e }));
    (tampered[7] as { data: unknown }).data = { i: 999 };
    const t = await verifyAuditChain(tampered, { publicKeys: [node.agentPublicKeyMultibase] });
    assert.deepEqual(t.ok ? null : [t.reason, t.index], ["invalid_signature", 7]);
    const unsignedCheck = await verifyAuditChain(tampered);
    assert.deepEqual(unsignedCheck.ok ? null : [unsignedCheck.reason, unsignedCheck.index], ["previous_hash_mismatch", 8]);
    const gap = await verifyAuditChain([all[0], all[2]]);
    assert.equal(gap.ok ? null : gap.reason, "sequence_gap");
    const fork = await verifyAuditChain([all[0], all[1], { ...all[1], id: "other" }]);
    assert.equal(fork.ok ? null : fork.reason, "sequence_fork");
    const other = await generateKeyPair();
    const wrongKey = await verifyAuditChain(all.slice(0, 3), { publicKeys: [other.publicKeyMultibase] });
    assert.equal(wrongKey.ok ? null : wrongKey.reason, "invalid_signature");
    const notGenesis = await verifyAuditChain([{ ...all[0], previousEventHash: "0".repeat(64) }]);
    assert.equal(notGenesis.ok ? null : notGenesis.reason, "first_event_not_genesis");
    const slice = await verifyAuditChain(all.slice(100, 110), { previousHash: "f".repeat(64) });
    assert.equal(slice.ok ? null : slice.reason, "previous_hash_mismatch");
    assert.equal((await verifyAuditChain("nope")).ok, false);
  });
});
