import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { api as ownerApi, innerCirclePair, startProcessNode, tfetch, type ProcessNode } from "../helpers/network-process.ts";
import { ROOT } from "../helpers/process.ts";

setDefaultTimeout(60_000);

/**
 * An extension client written from SPEC.md and docs/extensions.md alone, by someone who has not read
 * src/: node:crypto for Ed25519 and SHA-256, its own JCS and base58btc, fetch against real
 * `kith serve` processes. Each test states what the docs promise; a failure is a defect of the docs
 * or of the node.
 */

// ---- what a client writes itself (docs §1, §3, §4) ----
const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
function base58(bytes: Uint8Array): string {
  let n = BigInt("0x" + (Buffer.from(bytes).toString("hex") || "0"));
  let out = "";
  while (n > 0n) {
    out = B58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) if (b === 0) out = "1" + out;
    else break;
  return out;
}
function unbase58(text: string): Uint8Array {
  let n = 0n;
  for (const c of text) n = n * 58n + BigInt(B58.indexOf(c));
  let hex = n.toString(16);
  if (hex.length % 2) hex = "0" + hex;
  const lead = text.match(/^1*/)![0].length;
  return new Uint8Array([...new Uint8Array(lead), ...Buffer.from(hex, "hex")]);
}
function jcs(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(jcs).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${jcs(o[k])}`).join(",")}}`;
}
const sha256hex = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const b64u = (b: Uint8Array) => Buffer.from(b).toString("base64url");

interface Key { priv: KeyObject; multibase: string }
function newKey(): Key {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url");
  return { priv: privateKey, multibase: "z" + base58(new Uint8Array([0xed, 0x01, ...raw])) };
}
function publicKeyOf(multibase: string): KeyObject {
  const bytes = unbase58(multibase.slice(1));
  if (bytes[0] !== 0xed || bytes[1] !== 0x01 || bytes.length !== 34) throw new Error(`not an Ed25519 multibase key: ${multibase}`);
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: b64u(bytes.slice(2)) }, format: "jwk" });
}

/** Every `error` code this client met: docs §12 must explain each one. */
const seenErrors = new Set<string>();

/** The owner API (the test's own helper), noting the error codes it meets. */
async function api(node: ProcessNode, path: string, body?: unknown, method?: string) {
  const r = await ownerApi(node, path, body, method);
  if (typeof r.body?.error === "string") seenErrors.add(r.body.error);
  return r;
}
async function publicJson(url: string, init: RequestInit = {}) {
  const res = await tfetch(url, init);
  const body = (await res.json()) as any;
  if (typeof body?.error === "string") seenErrors.add(body.error);
  return { status: res.status, body, headers: res.headers };
}

/** One /ext/v1 request signed as docs §4 says. `raw` sends exactly these headers instead. */
class Client {
  constructor(public base: string, public key: Key, public token: string | null, public installationId: string) {}
  headers(method: string, target: string, body: string, over: Record<string, string | null> = {}): Record<string, string> {
    const nonce = over["x-request-nonce"] ?? crypto.randomUUID();
    const timestamp = over["x-request-timestamp"] ?? new Date().toISOString();
    const message = `${method}\n${target}\n${nonce}\n${timestamp}\n${sha256hex(body)}`;
    const h: Record<string, string | null> = {
      authorization: this.token === null ? null : `Bearer ${this.token}`,
      "x-request-nonce": nonce,
      "x-request-timestamp": timestamp,
      "x-extension-signature": b64u(sign(null, Buffer.from(message), this.key.priv)),
      ...(body ? { "content-type": "application/json" } : {}),
      ...over,
    };
    return Object.fromEntries(Object.entries(h).filter(([, v]) => v !== null)) as Record<string, string>;
  }
  async send(method: string, target: string, body?: unknown, over: Record<string, string | null> = {}): Promise<{ status: number; body: any; headers: Headers; sent: Record<string, string> }> {
    const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
    const sent = this.headers(method, target, text, over);
    const res = await tfetch(this.base + target, { method, headers: sent, ...(text ? { body: text } : {}) });
    const raw = await res.text();
    let parsed: any = raw;
    try { parsed = JSON.parse(raw); } catch { /* not JSON */ }
    if (typeof parsed?.error === "string") seenErrors.add(parsed.error);
    return { status: res.status, body: parsed, headers: res.headers, sent };
  }
  get = (target: string) => this.send("GET", target);
  async renew(ttlHours?: number) {
    const saved = this.token;
    this.token = null;
    const r = await this.send("POST", "/ext/v1/token", { installationId: this.installationId, ...(ttlHours ? { ttlHours } : {}) });
    this.token = r.status === 200 ? r.body.delegationToken : saved;
    return r;
  }
}

function manifestFor(key: Key, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    manifestVersion: 1,
    id: "org.indie.client",
    version: "1.0.0",
    name: "Independent client",
    summary: "Reads what it is granted and nothing else",
    publisher: { name: "Indie", domain: "indie.org" },
    links: { privacyPolicy: "https://indie.org/privacy" },
    keys: [{ keyId: "k1", algorithm: "Ed25519", publicKeyMultibase: key.multibase, status: "active" }],
    permissions: [
      { name: "connections:list", required: true, reason: "To list the people you keep in touch with" },
      { name: "layers:read", required: false, reason: "To know how close each contact is" },
      { name: "graph:read:clusters:summary", required: false, reason: "To show your groups of contacts" },
      { name: "graph:read:clusters:members", required: false, reason: "To show who is in each group" },
      { name: "graph:read:bridges", required: false, reason: "To show who connects your groups" },
      { name: "events:subscribe", required: false, reason: "To notice changes without polling" },
      { name: "profile:read", required: false, reason: "To greet contacts with your profile" },
      { name: "intents:send", required: false, reason: "To ping contacts you have not talked to" },
      { name: "agent.chat", required: false, reason: "To ask your agent about your network" },
    ],
    layers: { requested: ["inner", "active"], reason: "Only your closest circles" },
    maxAutonomyTier: "social",
    intents: ["ping", "ask"],
    ...over,
  };
}
const hashOf = (m: unknown) => `sha256:${sha256hex(jcs(m))}`;
const ALL = ["connections:list", "layers:read", "graph:read:clusters:summary", "graph:read:clusters:members", "graph:read:bridges", "events:subscribe", "profile:read", "intents:send", "agent.chat"];

const work = mkdtempSync(join(tmpdir(), "kith-indie-"));
const nodes: ProcessNode[] = [];
let alice: ProcessNode;
let bob: ProcessNode;
let bobContact: { id: string } & Record<string, unknown>;
let key: Key;
let client: Client;
let installBody: any;

beforeAll(async () => {
  const pair = await innerCirclePair(work, nodes);
  ({ alice, bob, contact: bobContact } = pair);
  key = newKey();
  const manifest = manifestFor(key);
  const r = await api(alice, "/extensions/install", { source: "inline", manifest, manifestHash: hashOf(manifest), grant: { permissions: ALL, layers: ["inner", "active"], maxAutonomyTier: "transactional" } });
  if (r.status !== 201) throw new Error(`install: ${r.status} ${JSON.stringify(r.body)}`);
  installBody = r.body;
  client = new Client(alice.base, key, r.body.delegationToken, r.body.installation.installationId);
}, 120_000);
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.running?.stop("SIGKILL")));
  rmSync(work, { recursive: true, force: true });
});

describe("docs §3: the delegation token", () => {
  test("payload has SPEC's fields and verifies under the agent's key from /ext/v1/identity", async () => {
    const [p64, s64] = client.token!.split(".");
    const text = Buffer.from(p64!, "base64url").toString("utf8");
    const payload = JSON.parse(text);
    expect(jcs(payload)).toBe(text);
    expect(payload).toMatchObject({ tokenVersion: 1, installationId: client.installationId, extensionId: "org.indie.client", ownerTulpaId: alice.agentId, publicKeyMultibase: key.multibase, maxAutonomyTier: "transactional" });
    expect(payload.permissions.sort()).toEqual([...ALL].sort());
    expect(payload.layers.sort()).toEqual(["active", "inner"]);
    expect(Date.parse(payload.expiresAt) - Date.parse(payload.issuedAt)).toBe(4 * 3600_000);
    const id = await client.get("/ext/v1/identity");
    expect(id.status).toBe(200);
    expect(typeof id.body.publicKeyMultibase).toBe("string");
    const ok = verify(null, Buffer.from("kith/delegation-token/1\n" + text), publicKeyOf(id.body.publicKeyMultibase), Buffer.from(s64!, "base64url"));
    expect(ok).toBe(true);
    expect(installBody.installation.installationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  test("renewal without Authorization replaces the token; the old one is token_revoked", async () => {
    const old = client.token!;
    const r = await client.renew(2);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["delegationToken", "installationId", "tokenExpiresAt"]);
    const payload = JSON.parse(Buffer.from(client.token!.split(".")[0]!, "base64url").toString());
    expect(payload.expiresAt).toBe(r.body.tokenExpiresAt);
    expect(Date.parse(payload.expiresAt) - Date.parse(payload.issuedAt)).toBe(2 * 3600_000);
    const stale = new Client(alice.base, key, old, client.installationId);
    const res = await stale.get("/ext/v1/identity");
    expect([res.status, res.body.error]).toEqual([401, "token_revoked"]);
    expect(res.headers.get("www-authenticate")).toContain('error="token_revoked"');
  });
});

describe("docs §4–5: signing and the seven checks", () => {
  test("each check answers its own code, the earliest first", async () => {
    const c = client;
    const cases: Array<[Record<string, string | null>, string]> = [
      [{ authorization: null }, "token_invalid"],
      [{ authorization: "Bearer x.y" }, "token_invalid"],
      [{ "x-request-timestamp": null }, "timestamp_out_of_window"],
      [{ "x-request-timestamp": new Date(Date.now() - 301_000).toISOString() }, "timestamp_out_of_window"],
      [{ "x-request-timestamp": new Date(Date.now() + 60_000).toISOString() }, "timestamp_out_of_window"],
      [{ "x-request-timestamp": "2026-03-01 12:00:00Z" }, "timestamp_out_of_window"],
      [{ "x-request-nonce": null }, "nonce_replayed"],
      [{ "x-request-nonce": "short" }, "nonce_replayed"],
      [{ "x-extension-signature": null }, "signature_invalid"],
      [{ "x-extension-signature": "A".repeat(86) }, "signature_invalid"],
    ];
    for (const [over, code] of cases) {
      const r = await c.send("GET", "/ext/v1/identity", undefined, over);
      expect([JSON.stringify(over), r.status, r.body.error, typeof r.body.message]).toEqual([JSON.stringify(over), 401, code, "string"]);
    }
  });

  test("the Bearer scheme is case-insensitive (RFC 7235 §2.1), on the extension API as on the owner API", async () => {
    for (const scheme of ["bearer", "BEARER", "Bearer "]) {
      const r = await client.send("GET", "/ext/v1/identity", undefined, { authorization: `${scheme} ${client.token}` });
      expect([scheme, r.status]).toEqual([scheme, 200]);
      const owner = await tfetch(`${alice.base}/api/svc/extensions`, { headers: { authorization: `${scheme} ${alice.token}` } });
      expect([scheme, owner.status]).toEqual([scheme, 200]);
    }
    const malformed = await client.send("GET", "/ext/v1/identity", undefined, { authorization: `Bearer\t${client.token}` });
    expect([malformed.status, malformed.body.error]).toEqual([401, "token_invalid"]);
  });

  test("replaying a signed request — same path, another path, another query — is refused", async () => {
    const first = await client.get("/ext/v1/connections?limit=5");
    expect(first.status).toBe(200);
    const replay = async (target: string, keepNonce: boolean) => {
      const h = { ...first.sent };
      if (!keepNonce) h["x-request-nonce"] = crypto.randomUUID();
      const res = await tfetch(alice.base + target, { headers: h });
      return [res.status, ((await res.json()) as any).error];
    };
    expect(await replay("/ext/v1/connections?limit=5", true)).toEqual([401, "nonce_replayed"]);
    expect(await replay("/ext/v1/layers?limit=5", true)).toEqual([401, "nonce_replayed"]);
    expect(await replay("/ext/v1/layers?limit=5", false)).toEqual([401, "signature_invalid"]);
    expect(await replay("/ext/v1/connections?limit=6", false)).toEqual([401, "signature_invalid"]);
    expect(await replay("/ext/v1/connections", false)).toEqual([401, "signature_invalid"]);
  });

  test("a token issued by one node is token_invalid on another", async () => {
    const elsewhere = new Client(bob.base, key, client.token, client.installationId);
    const r = await elsewhere.get("/ext/v1/identity");
    expect([r.status, r.body.error]).toEqual([401, "token_invalid"]);
  });

  test("a request signed with a key the manifest does not list is signature_invalid", async () => {
    const other = new Client(alice.base, newKey(), client.token, client.installationId);
    const r = await other.get("/ext/v1/identity");
    expect([r.status, r.body.error]).toEqual([401, "signature_invalid"]);
    const renew = await other.renew();
    expect([renew.status, renew.body.error]).toEqual([401, "signature_invalid"]);
  });
});

describe("docs §5–8: every endpoint", () => {
  test("identity, connections, layers, profile, health, decaying, clusters, bridges, chat", async () => {
    const id = await client.get("/ext/v1/identity");
    expect(id.body).toMatchObject({ agentId: alice.agentId, installationId: client.installationId });

    const list = await client.get("/ext/v1/connections");
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    const listed = list.body.items ?? list.body.connections ?? list.body.results;
    expect(Array.isArray(listed)).toBe(true);
    expect(listed[0].contactId ?? listed[0].id).toBe(bobContact.id);

    const one = await client.get(`/ext/v1/connections/${bobContact.id}`);
    expect(one.status).toBe(200);
    const lay = await client.get("/ext/v1/layers");
    expect(lay.status).toBe(200);
    const layOne = await client.get(`/ext/v1/layers/${bobContact.id}`);
    expect([layOne.status, layOne.body.layer]).toEqual([200, "inner"]);

    for (const path of ["/ext/v1/profile", "/ext/v1/health", "/ext/v1/decaying", "/ext/v1/clusters", "/ext/v1/bridges"]) {
      const r = await client.get(path);
      expect([path, r.status]).toEqual([path, 200]);
    }
    // docs §7a: the four relationship reads carry an ETag; If-None-Match answers 304 when nothing changed.
    for (const path of ["/ext/v1/health", "/ext/v1/decaying", "/ext/v1/clusters", "/ext/v1/bridges"]) {
      const first = await client.get(path);
      const etag = first.headers.get("etag");
      expect([path, typeof etag]).toEqual([path, "string"]);
      const again = await client.send("GET", path, undefined, { "if-none-match": etag! });
      expect([path, again.status]).toEqual([path, 304]);
    }
    const chat = await client.send("POST", "/ext/v1/agent/chat", { message: "Who is decaying?" });
    expect(chat.status).toBe(200);
    expect(typeof chat.body.reply).toBe("string");
    expect(["llm", "builtin"]).toContain(chat.body.backend);
  });

  test("limits and offsets are validated with 400 invalid_input naming the value", async () => {
    for (const q of ["limit=0", "limit=201", "limit=abc", "offset=-1", "offset=x"]) {
      const r = await client.get(`/ext/v1/connections?${q}`);
      expect([q, r.status, r.body.error]).toEqual([q, 400, "invalid_input"]);
    }
    for (const q of ["limit=0", "limit=501", "since=-1", "since=abc"]) {
      const r = await client.get(`/ext/v1/events?${q}`);
      expect([q, r.status, r.body.error]).toEqual([q, 400, "invalid_input"]);
    }
    for (const q of ["limit=0", "limit=201"]) {
      const r = await client.get(`/ext/v1/audit?${q}`);
      expect([q, r.status, r.body.error]).toEqual([q, 400, "invalid_input"]);
    }
  });

  test("an intent within tier goes out; above it is held; undeclared is 403; idempotency holds", async () => {
    const ping = { to: bobContact.id, intent: "ping", payload: {} };
    const sent = await client.send("POST", "/ext/v1/intents", ping, { "idempotency-key": "ping-1" });
    expect([200, 202]).toContain(sent.status);
    expect(typeof sent.body.intentId).toBe("string");
    const again = await client.send("POST", "/ext/v1/intents", ping, { "idempotency-key": "ping-1" });
    expect([again.status, again.body.intentId]).toEqual([sent.status, sent.body.intentId]);
    const reused = await client.send("POST", "/ext/v1/intents", { ...ping, payload: { note: "other" } }, { "idempotency-key": "ping-1" });
    expect([reused.status, reused.body.error]).toEqual([422, "idempotency_key_reused"]);
    const ask = await client.send("POST", "/ext/v1/intents", { to: bobContact.id, intent: "ask", payload: { question: "Lunch?" } });
    expect([ask.status, ask.body.status]).toEqual([202, "pending_approval"]);
    const undeclared = await client.send("POST", "/ext/v1/intents", { to: bobContact.id, intent: "follow_up", payload: {} });
    expect([undeclared.status, undeclared.body.error]).toEqual([403, "intent_not_declared"]);
  });

  test("the feed: a cursor, kinds, since_in_future", async () => {
    const start = await client.get("/ext/v1/events");
    expect(start.status).toBe(200);
    expect(start.body.events).toEqual([]);
    expect(typeof start.body.nextSince).toBe("number");
    expect(typeof start.body.streamId).toBe("string");
    const future = await client.get(`/ext/v1/events?since=${start.body.latest + 1000}`);
    expect([future.status, future.body.error, future.body.latest, future.body.streamId]).toEqual([400, "since_in_future", start.body.latest, start.body.streamId]);
    const all = await client.get("/ext/v1/events?since=0&kinds=intent.status_changed");
    expect(all.status).toBe(200);
    for (const e of all.body.events) expect(e.kind).toBe("intent.status_changed");
  });

  test("the audit log verifies as docs §8 says", async () => {
    const events: any[] = [];
    for (let offset = 0; ; offset += 200) {
      const page = await client.get(`/ext/v1/audit?limit=200&offset=${offset}`);
      expect(page.status).toBe(200);
      const items = page.body.events ?? page.body.items;
      expect(Array.isArray(items)).toBe(true);
      events.push(...items);
      if (items.length < 200) break;
    }
    expect(events.length).toBeGreaterThan(5);
    const card = (await (await tfetch(alice.cardUrl)).json()) as any;
    let previous: any = null;
    for (const [i, e] of events.entries()) {
      expect(e.version).toBe("ink-audit/1");
      expect(e.sequence).toBe(i + 1);
      const { agentSignature, ...unsigned } = e;
      if (previous) {
        const { agentSignature: _, ...prevUnsigned } = previous;
        expect(e.previousEventHash).toBe(sha256hex(jcs(prevUnsigned)));
      }
      // docs §8: the key named by signingKeyId in the card's keys.signing[] (SPEC "Agent Card").
      const k = card.keys.signing.find((x: any) => x.keyId === e.signingKeyId);
      expect(verify(null, Buffer.from("ink/audit-event\n" + jcs(unsigned)), publicKeyOf(k.publicKeyMultibase), Buffer.from(agentSignature, "base64url"))).toBe(true);
      previous = e;
    }
    expect(events.some((e) => e.type === "delegation.used" || e.eventType === "delegation.used" || JSON.stringify(e).includes("delegation.used"))).toBe(true);
  });
});

describe("attacks: another installation, another layer", () => {
  test("a second installation sees none of the first's audit, intents or approvals", async () => {
    const k2 = newKey();
    const m2 = manifestFor(k2, { id: "org.indie.other", permissions: [
      { name: "connections:list", required: true, reason: "To list the people you keep in touch with" },
      { name: "events:subscribe", required: false, reason: "To notice changes without polling" },
      { name: "intents:send", required: false, reason: "To ping contacts you have not talked to" },
    ] });
    const r = await api(alice, "/extensions/install", { source: "inline", manifest: m2, manifestHash: hashOf(m2), grant: { permissions: ["connections:list", "events:subscribe", "intents:send"], layers: ["inner"], maxAutonomyTier: "transactional" } });
    expect(r.status).toBe(201);
    const other = new Client(alice.base, k2, r.body.delegationToken, r.body.installation.installationId);
    // Its own token with the first installation's key, and the first's token with its key: refused.
    expect((await new Client(alice.base, key, other.token, other.installationId).get("/ext/v1/identity")).body.error).toBe("signature_invalid");
    expect((await new Client(alice.base, k2, client.token, client.installationId).get("/ext/v1/identity")).body.error).toBe("signature_invalid");
    // Renewing the other installation's token with its own key: refused.
    const steal = new Client(alice.base, k2, null, client.installationId);
    expect((await steal.renew()).status).toBe(401);
    const audit = await other.get("/ext/v1/audit?limit=200");
    const items = audit.body.events ?? audit.body.items;
    expect(JSON.stringify(items)).not.toContain(client.installationId);
    const feed = await other.get("/ext/v1/events?since=0&limit=500");
    expect(feed.status).toBe(200);
    for (const e of feed.body.events) expect(["intent.status_changed", "approval.resolved"]).not.toContain(e.kind);
    expect(JSON.stringify(feed.body)).not.toContain(client.installationId);
    // Idempotency keys and nonces belong to one installation: the same key elsewhere is a new intent.
    const ping = { to: bobContact.id, intent: "ping", payload: {} };
    const mine = await client.send("POST", "/ext/v1/intents", ping, { "idempotency-key": "shared-key" });
    const theirs = await other.send("POST", "/ext/v1/intents", ping, { "idempotency-key": "shared-key" });
    expect([theirs.status < 300, theirs.body.intentId === mine.body.intentId]).toEqual([true, false]);
    expect((await other.send("GET", "/ext/v1/identity", undefined, { "x-request-nonce": mine.sent["x-request-nonce"]! })).status).toBe(200);
  });

  test("a contact outside the granted layers cannot be reached by id, agent id or query", async () => {
    expect((await api(alice, `/connections/${bobContact.id}`, { layer: "sympathy" }, "PATCH")).status).toBe(200);
    try {
      const agentId = encodeURIComponent(bob.agentId);
      for (const path of [
        `/ext/v1/connections/${bobContact.id}`, `/ext/v1/layers/${bobContact.id}`,
        `/ext/v1/connections/${agentId}`, `/ext/v1/layers/${agentId}`,
      ]) {
        const r = await client.get(path);
        expect([path, r.status, r.body.error]).toEqual([path, 404, "not_found"]);
      }
      for (const path of ["/ext/v1/connections", "/ext/v1/connections?layer=sympathy", "/ext/v1/connections?layers=sympathy", "/ext/v1/layers", "/ext/v1/layers?layer=sympathy", "/ext/v1/decaying", "/ext/v1/bridges", "/ext/v1/clusters", "/ext/v1/health"]) {
        const r = await client.get(path);
        expect([path, r.status < 500]).toEqual([path, true]);
        expect([path, JSON.stringify(r.body).includes(bobContact.id) || JSON.stringify(r.body).includes(bob.agentId)]).toEqual([path, false]);
      }
      for (const message of ["Find Bob", "who is bob?", "Who is decaying?", "Who connects my clusters?"]) {
        const r = await client.send("POST", "/ext/v1/agent/chat", { message });
        expect([message, r.status, /bob/i.test(JSON.stringify(r.body).replace(/matching \\"bob\\"/i, ""))]).toEqual([message, 200, false]);
      }
      for (const to of [bobContact.id, bob.agentId, "bob", "@bob", bob.cardUrl, bob.agentId.toUpperCase(), bobContact.id.toLowerCase()]) {
        const r = await client.send("POST", "/ext/v1/intents", { to, intent: "ping", payload: {} });
        expect([to, r.status, r.body.error]).toEqual([to, 404, "not_found"]);
      }
    } finally {
      expect((await api(alice, `/connections/${bobContact.id}`, { layer: "inner" }, "PATCH")).status).toBe(200);
    }
    const found = await client.send("POST", "/ext/v1/agent/chat", { message: "Find Bob" });
    expect(found.body.reply).toContain("Bob");
  });
});


describe("docs §2–3: key rotation by manifest update", () => {
  test("a retired key signs nothing; after a rotation the dropped key keeps working and the new one renews", async () => {
    const a1 = newKey(), a2 = newKey(), a3 = newKey();
    const m = manifestFor(a1, { id: "org.indie.rotate", keys: [{ keyId: "a1", algorithm: "Ed25519", publicKeyMultibase: a1.multibase, status: "active" }, { keyId: "a2", algorithm: "Ed25519", publicKeyMultibase: a2.multibase, status: "retired" }] });
    const r = await api(alice, "/extensions/install", { source: "inline", manifest: m, manifestHash: hashOf(m), grant: { permissions: ["connections:list"], layers: ["inner"] } });
    expect(r.status).toBe(201);
    const iid = r.body.installation.installationId;
    const retired = new Client(alice.base, a2, r.body.delegationToken, iid);
    expect((await retired.get("/ext/v1/identity")).body.error).toBe("signature_invalid");
    expect((await retired.renew()).body.error).toBe("signature_invalid");
    const m2 = { ...m, version: "1.0.1", keys: [{ keyId: "a3", algorithm: "Ed25519", publicKeyMultibase: a3.multibase, status: "active" }] };
    const updated = await api(alice, `/extensions/${iid}/update`, { source: "inline", manifest: m2, manifestHash: hashOf(m2) });
    expect([updated.status, updated.body.version]).toEqual([200, "1.0.1"]);
    expect((await new Client(alice.base, a1, r.body.delegationToken, iid).get("/ext/v1/identity")).status).toBe(200);
    const fresh = new Client(alice.base, a3, null, iid);
    expect((await fresh.renew()).status).toBe(200);
    expect(JSON.parse(Buffer.from(fresh.token!.split(".")[0]!, "base64url").toString()).publicKeyMultibase).toBe(a3.multibase);
    expect((await fresh.get("/ext/v1/identity")).status).toBe(200);
    const removed = await api(alice, `/extensions/${iid}`, undefined, "DELETE");
    expect(removed.status).toBe(200);
    expect((await fresh.get("/ext/v1/identity")).body.error).toBe("installation_inactive");
    expect((await fresh.renew()).body.error).toBe("installation_inactive");
  });
});

describe("hostile bodies on the signed POST routes (docs §9, §12)", () => {
  test("chat and intents refuse each with 4xx {error, message}", async () => {
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
    const bodies: Array<[string, string]> = [["nested", `{"message":${deep(15000)}}`], ["array", `{"message":[${Array(20000).fill('"x"').join(",")}]}`], ["[]", "[]"], ["1e309", `{"message":1e309}`], ["lone surrogate", `{"message":"\\ud800"}`], ["4001", JSON.stringify({ message: "x".repeat(4001) })], ["extra", JSON.stringify({ message: "hi", x: 1 })], ["null", "null"], ["empty", ""]];
    for (const target of ["/ext/v1/agent/chat", "/ext/v1/intents"]) {
      for (const [label, body] of bodies) {
        const r = await client.send("POST", target, body, { "content-type": "application/json" });
        expect([target, label, r.status >= 400 && r.status < 500, typeof r.body.error, typeof r.body.message]).toEqual([target, label, true, "string", "string"]);
      }
      const typed = await client.send("POST", target, "message=hi", { "content-type": "text/plain" });
      expect([typed.status, typed.body.error]).toEqual([415, "unsupported_media_type"]);
    }
    const big = await client.send("POST", "/ext/v1/intents", { to: bobContact.id, intent: "ping", payload: { note: "x".repeat(70_000) } });
    expect([big.status, big.body.error]).toEqual([413, "payload_too_large"]);
    const bigChat = await client.send("POST", "/ext/v1/agent/chat", { message: "x".repeat(17_000) });
    expect([bigChat.status, bigChat.body.error]).toEqual([413, "payload_too_large"]);
  });
});

describe("docs §6: contacts without an agent", () => {
  test("an imported contact in a granted layer is listed, and an intent to it is 409 no_agent, not 404", async () => {
    const csv = "First Name,Last Name,URL,Email Address,Company,Position,Connected On\nZelda,Quarry,https://www.linkedin.com/in/zq,,Quarry Inc,CEO,01 Jan 2020\n";
    expect((await api(alice, "/import/linkedin", { csv })).status).toBe(200);
    const zelda = ((await api(alice, "/connections")).body.items as Array<{ id: string; displayName: string }>).find((c) => c.displayName === "Zelda Quarry")!;
    expect((await client.get(`/ext/v1/connections/${zelda.id}`)).status).toBe(404);
    expect((await client.send("POST", "/ext/v1/intents", { to: zelda.id, intent: "ping", payload: {} })).status).toBe(404);
    expect((await api(alice, `/connections/${zelda.id}`, { layer: "inner" }, "PATCH")).status).toBe(200);
    try {
      const seen = await client.get(`/ext/v1/connections/${zelda.id}`);
      expect([seen.status, seen.body.agentId]).toEqual([200, null]);
      const sent = await client.send("POST", "/ext/v1/intents", { to: zelda.id, intent: "ping", payload: {} });
      expect([sent.status, sent.body.error]).toEqual([409, "no_agent"]);
    } finally {
      expect((await api(alice, `/connections/${zelda.id}`, { layer: "known" }, "PATCH")).status).toBe(200);
    }
  });
});

describe("docs §10: the marketplace", () => {
  test("submit → review → listed → browse → detail → install from the marketplace → rate", async () => {
    const k3 = newKey();
    const m3 = manifestFor(k3, { id: "org.indie.market", name: "Market client", permissions: [{ name: "connections:list", required: true, reason: "To list the people you keep in touch with" }] });
    const mk = async (path: string, body?: unknown, method?: string) => {
      const res = await tfetch(alice.base + path, { method: method ?? (body === undefined ? "GET" : "POST"), headers: { authorization: `Bearer ${alice.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const answer = (await res.json()) as any;
      if (typeof answer?.error === "string") seenErrors.add(answer.error);
      return { status: res.status, body: answer };
    };
    const sub = await mk("/marketplace/submit", { manifest: m3 });
    expect(sub.status).toBe(201);
    expect(sub.body).toMatchObject({ extensionId: "org.indie.market", version: "1.0.0", manifestHash: hashOf(m3), reviewState: "submitted" });
    expect((await mk("/marketplace/submit", { manifest: m3 })).body.error).toBe("version_exists");
    const queue = await api(alice, "/marketplace/submissions?state=submitted");
    expect(queue.status).toBe(200);
    expect(JSON.stringify(queue.body)).toContain("org.indie.market");
    const review = (d: unknown) => api(alice, "/marketplace/extensions/org.indie.market/versions/1.0.0/review", d);
    expect((await review({ decision: "start" })).status).toBe(200);
    const bad = await review({ decision: "start" });
    expect([bad.status, bad.body.error, bad.body.reviewState]).toEqual([409, "invalid_transition", "in_review"]);
    expect((await review({ decision: "approve" })).status).toBe(200);
    const again = await review({ decision: "withdraw" });
    expect([again.status, again.body.error, again.body.reviewState]).toEqual([409, "invalid_transition", "approved"]);

    const browse = await tfetch(`${alice.base}/marketplace/extensions?q=market`);
    expect(browse.status).toBe(200);
    const results = ((await browse.json()) as any).results;
    expect(results.map((r: any) => r.extensionId)).toContain("org.indie.market");
    const detail = await tfetch(`${alice.base}/marketplace/extensions/org.indie.market`);
    const d = (await detail.json()) as any;
    expect([detail.status, d.manifestHash]).toEqual([200, hashOf(m3)]);
    expect(d.manifest).toEqual(m3);

    const notYet = await api(alice, "/marketplace/extensions/org.indie.market/reviews", { rating: 5 });
    expect([notYet.status, notYet.body.error]).toEqual([403, "not_installed"]);
    const inst = await api(alice, "/extensions/install", { source: "marketplace", extensionId: "org.indie.market", manifestHash: d.manifestHash, grant: { permissions: ["connections:list"], layers: ["inner"] } });
    expect(inst.status).toBe(201);
    const rated = await api(alice, "/marketplace/extensions/org.indie.market/reviews", { rating: 4, comment: "Does what it says" });
    expect([200, 201]).toContain(rated.status);
    const twice = await api(alice, "/marketplace/extensions/org.indie.market/reviews", { rating: 1 });
    expect([twice.status, twice.body.error]).toEqual([409, "already_reviewed"]);

    // Bob's node installs it from Alice's marketplace.
    const remote = await api(bob, "/extensions/install", { source: "marketplace", marketplaceUrl: alice.base, extensionId: "org.indie.market", manifestHash: d.manifestHash, grant: { permissions: ["connections:list"], layers: ["inner"] } });
    expect(remote.status).toBe(201);
    const wrong = await api(bob, "/extensions/install", { source: "marketplace", marketplaceUrl: alice.base, extensionId: "org.indie.nothing", manifestHash: d.manifestHash, grant: { permissions: ["connections:list"], layers: ["inner"] } });
    expect([wrong.status, wrong.body.error]).toEqual([422, "manifest_unavailable"]);

    // Review spoofing: an unsigned network review, and one claiming to be Alice's agent, are refused.
    const spoof = { protocol: "ink/0.1", type: `network.${alice.agentId.split(":")[0]}.marketplace_review`, from: alice.agentId, to: alice.agentId, nonce: crypto.randomUUID(), timestamp: new Date().toISOString(), extensionId: "org.indie.market", rating: 1 };
    const unsigned = await publicJson(`${alice.base}/marketplace/extensions/org.indie.market/reviews`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(spoof) });
    expect(unsigned.status).toBe(401);
    const forged = await publicJson(`${alice.base}/marketplace/extensions/org.indie.market/reviews`, { method: "POST", headers: { "content-type": "application/json", authorization: `INK-Ed25519 ${b64u(sign(null, Buffer.from(jcs(spoof)), k3.priv))} keyId=${alice.agentId}#k1` }, body: JSON.stringify(spoof) });
    expect(forged.status).toBe(401);
    const stats = (await (await tfetch(`${alice.base}/marketplace/extensions/org.indie.market`)).json()) as any;
    expect(stats.reviewStats.count).toBe(1);

    // Listing states: unlisted leaves search but stays installable; delisted and suspended leave both.
    const listing = (listingState: string) => api(alice, "/marketplace/extensions/org.indie.market/listing", { listingState }, "PUT");
    expect((await listing("unlisted")).status).toBe(200);
    expect((await publicJson(`${alice.base}/marketplace/extensions?q=market`)).body.results.map((r: any) => r.extensionId)).not.toContain("org.indie.market");
    expect((await publicJson(`${alice.base}/marketplace/extensions/org.indie.market`)).status).toBe(200);
    for (const state of ["delisted", "suspended"]) {
      expect((await listing(state)).status).toBe(200);
      expect([state, (await publicJson(`${alice.base}/marketplace/extensions/org.indie.market`)).status]).toEqual([state, 404]);
      const refused = await api(bob, "/extensions/install", { source: "marketplace", marketplaceUrl: alice.base, extensionId: "org.indie.market", manifestHash: d.manifestHash, grant: { permissions: ["connections:list"], layers: ["inner"] } });
      expect([state, refused.status, refused.body.error]).toEqual([state, 422, "manifest_unavailable"]);
    }
    const notListable = await api(alice, "/marketplace/extensions/org.indie.nothing/listing", { listingState: "listed" }, "PUT");
    expect(notListable.status).toBe(404);
  });
});

describe("docs §9, §12: limits, and every error explained", () => {
  test("renewals past 30 a minute and browsing past 30 a minute answer 429 rate_limited with Retry-After", async () => {
    const k = newKey();
    const m = manifestFor(k, { id: "org.indie.renewer", permissions: [{ name: "connections:list", required: true, reason: "To list the people you keep in touch with" }] });
    const r = await api(alice, "/extensions/install", { source: "inline", manifest: m, manifestHash: hashOf(m), grant: { permissions: ["connections:list"], layers: ["inner"] } });
    const renewer = new Client(alice.base, k, r.body.delegationToken, r.body.installation.installationId);
    const statuses: number[] = [];
    let last: any;
    for (let i = 0; i < 31; i++) statuses.push((last = await renewer.renew()).status);
    expect(statuses).toEqual([...Array(30).fill(200), 429]);
    expect([last.body.error, Number(last.headers.get("retry-after")) > 0]).toEqual(["rate_limited", true]);
    let browse: any;
    for (let i = 0; i < 31; i++) browse = await publicJson(`${alice.base}/marketplace/extensions?q=indie`);
    expect([browse.status, browse.body.error, Number(browse.headers.get("retry-after")) > 0]).toEqual([429, "rate_limited", true]);
  });

  test("a restart keeps tokens and nonces: a request replayed after it is nonce_replayed", async () => {
    const first = await client.get("/ext/v1/identity");
    expect(first.status).toBe(200);
    await alice.running!.stop("SIGTERM");
    await startProcessNode(alice);
    const replayed = await publicJson(alice.base + "/ext/v1/identity", { headers: first.sent });
    expect([replayed.status, replayed.body.error]).toEqual([401, "nonce_replayed"]);
    expect((await client.get("/ext/v1/identity")).status).toBe(200);
  });

  test("docs §12 lists every error code this client met", () => {
    const doc = readFileSync(join(ROOT, "docs/extensions.md"), "utf8");
    const table = doc.slice(doc.indexOf("## 12."));
    const missing = [...seenErrors].filter((code) => !table.includes(`\`${code}\``));
    expect(missing).toEqual([]);
    expect(seenErrors.size).toBeGreaterThan(15);
  });
});
