// A small stand-in for a Kith node's /ext/v1 surface, written from SPEC.md's rules with node:http
// and node:crypto only (no SDK code), so that it runs under Node 20 and Bun alike and checks the
// SDK's requests independently: the seven checks in SPEC's order, permissions, layer filtering,
// token renewal, Idempotency-Key, the event feed and a signed audit chain. Faults can be queued.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");
const b64u = (b: Buffer): string => b.toString("base64url");

/** Sorted-key JSON (enough of JCS for the plain data this fake signs). */
export function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(o[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

export function rawPublicKey(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: "jwk" }).x as string, "base64url");
}

export function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519, Buffer.from(raw)]), format: "der", type: "spki" });
}

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
export function multibase(raw: Buffer): string {
  let n = BigInt(`0x${Buffer.concat([Buffer.from([0xed, 0x01]), raw]).toString("hex")}`);
  let s = "";
  while (n > 0n) {
    s = B58[Number(n % 58n)] + s;
    n /= 58n;
  }
  return `z${s}`;
}

export type Contact = { contactId: string; layer: string; band: string };
export type Fault = { status: number; body?: unknown; headers?: Record<string, string>; after?: boolean; drop?: boolean; delayMs?: number };
export type Seen = { method: string; target: string; nonce: string; signature: string; auth: string | null; idempotencyKey: string | null; status: number };

const PERMISSION: Array<[RegExp, string | null]> = [
  [/^\/ext\/v1\/identity$/, null],
  [/^\/ext\/v1\/audit$/, null],
  [/^\/ext\/v1\/connections(\/[^/]+)?$/, "connections:list"],
  [/^\/ext\/v1\/(layers(\/[^/]+)?|health|decaying)$/, "layers:read"],
  [/^\/ext\/v1\/clusters$/, "graph:read:clusters:summary"],
  [/^\/ext\/v1\/bridges$/, "graph:read:bridges"],
  [/^\/ext\/v1\/events$/, "events:subscribe"],
  [/^\/ext\/v1\/profile$/, "profile:read"],
  [/^\/ext\/v1\/intents$/, "intents:send"],
  [/^\/ext\/v1\/agent\/chat$/, "agent.chat"],
];
const TIER: Record<string, number> = { transactional: 0, social: 1, personal: 2 };
const INTENT_TIER: Record<string, string> = { ping: "transactional", ask: "social", intro_request: "personal" };

export class FakeNode {
  readonly agentKey = generateKeyPairSync("ed25519");
  readonly agentId: string;
  server: Server | null = null;
  baseUrl = "";
  tokenHash = "";
  active = true;
  permissions: string[] = ["connections:list", "layers:read", "events:subscribe", "intents:send", "profile:read"];
  layers: string[] = ["inner", "active"];
  maxAutonomyTier = "transactional";
  ttlMs = 4 * 3600_000;
  now = (): number => Date.now();
  readonly installationId = randomUUID();
  readonly extensionKey: KeyObject;
  contacts: Contact[] = [
    { contactId: "c-inner", layer: "inner", band: "cooling" },
    { contactId: "c-active", layer: "active", band: "at_risk" },
    { contactId: "c-symp", layer: "sympathy", band: "cooling" },
  ];
  events: Array<{ seq: number; id: string; kind: string; data: Record<string, unknown> }> = [];
  streamId = "st_one";
  oldestAvailable = 1;
  audit: Array<Record<string, unknown>> = [];
  faults: Fault[] = [];
  seen: Seen[] = [];
  nonces = new Set<string>();
  renewals = 0;
  intentsSent: Array<Record<string, unknown>> = [];
  idempotency = new Map<string, { status: number; body: unknown }>();

  constructor(extensionPublicKey: Uint8Array) {
    this.extensionKey = publicKeyFromRaw(extensionPublicKey);
    this.agentId = `svc:${multibase(rawPublicKey(this.agentKey.publicKey))}`;
  }

  get agentPublicKeyMultibase(): string {
    return multibase(rawPublicKey(this.agentKey.publicKey));
  }

  issueToken(at = this.now(), ttlMs = this.ttlMs): string {
    const payload = {
      installationId: this.installationId,
      extensionId: "com.example.test",
      ownerTulpaId: this.agentId,
      permissions: this.permissions,
      layers: this.layers,
      maxAutonomyTier: this.maxAutonomyTier,
      issuedAt: new Date(at).toISOString(),
      expiresAt: new Date(at + ttlMs).toISOString(),
      publicKeyMultibase: multibase(rawPublicKey(this.extensionKey)),
      tokenVersion: 1,
    };
    // As the node does (src/security/extension-token.ts): Ed25519 over the domain + JCS(payload).
    const jcs = sortedJson(payload);
    const token = `${b64u(Buffer.from(jcs))}.${b64u(sign(null, Buffer.from(`kith/delegation-token/1\n${jcs}`), this.agentKey.privateKey))}`;
    this.tokenHash = createHash("sha256").update(token).digest("hex");
    return token;
  }

  appendAudit(eventType: string, data: Record<string, unknown> = {}): void {
    const prev = this.audit.at(-1);
    const { agentSignature: _s, ...prevUnsigned } = prev ?? {};
    const entry: Record<string, unknown> = {
      id: randomUUID(),
      version: "ink-audit/1",
      agentId: this.agentId,
      sequence: this.audit.length + 1,
      previousEventHash: prev ? createHash("sha256").update(sortedJson(prevUnsigned)).digest("hex") : null,
      eventType,
      timestamp: new Date(this.now()).toISOString(),
      data: { transport: "extension_api", ...data },
    };
    entry.agentSignature = b64u(sign(null, Buffer.from(`ink/audit-event\n${sortedJson(entry)}`), this.agentKey.privateKey));
    this.audit.push(entry);
  }

  addEvent(kind: string, data: Record<string, unknown> = {}): void {
    const seq = (this.events.at(-1)?.seq ?? this.oldestAvailable - 1) + 1;
    this.events.push({ seq, id: `ev_${seq}_${this.streamId}`, kind, data });
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    const address = this.server.address();
    this.baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    return this.baseUrl;
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections?.();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const h = (name: string): string | null => (typeof req.headers[name] === "string" ? (req.headers[name] as string) : null);
    const record: Seen = { method: req.method ?? "", target: req.url ?? "", nonce: h("x-request-nonce") ?? "", signature: h("x-extension-signature") ?? "", auth: h("authorization"), idempotencyKey: h("idempotency-key"), status: 0 };
    this.seen.push(record);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      // No keep-alive: a runtime's fetch silently re-sends a request whose reused socket was dropped,
      // which would hide whether the SDK itself retries with a fresh nonce.
      res.writeHead(status, { "content-type": "application/json", connection: "close", ...headers });
      res.end(body === undefined ? "" : JSON.stringify(body));
    };
    const fault = this.faults[0] && !this.faults[0].after ? this.faults.shift() : undefined;
    if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault?.drop) return void req.socket.destroy();
    if (fault) return send(fault.status, fault.body ?? { error: `http_${fault.status}`, message: "injected" }, fault.headers);
    const answer = this.#route(req.method ?? "GET", req.url ?? "/", raw, h);
    const after = this.faults[0]?.after ? this.faults.shift() : undefined;
    if (after) return send(after.status, after.body ?? { error: `http_${after.status}`, message: "injected after acting" }, after.headers);
    send(answer.status, answer.body, answer.headers);
  }

  #err(status: number, error: string, extra: Record<string, unknown> = {}) {
    return { status, body: { error, message: error.replace(/_/g, " "), ...extra } };
  }

  /** SPEC checks 5–7: timestamp window (300 s past, 30 s future), nonce, request signature. */
  #requestChecks(method: string, target: string, raw: Buffer, h: (n: string) => string | null) {
    const ts = h("x-request-timestamp");
    const t = ts !== null && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(ts) ? Date.parse(ts) : Number.NaN;
    if (Number.isNaN(t) || t < this.now() - 300_000 || t > this.now() + 30_000) return this.#err(401, "timestamp_out_of_window");
    const nonce = h("x-request-nonce");
    if (nonce === null || !/^[A-Za-z0-9_-]{16,128}$/.test(nonce)) return this.#err(401, "nonce_replayed", { message: "missing or unusable nonce" });
    if (this.nonces.has(nonce)) return this.#err(401, "nonce_replayed");
    const text = `${method}\n${target}\n${nonce}\n${ts}\n${createHash("sha256").update(raw).digest("hex")}`;
    const sig = Buffer.from(h("x-extension-signature") ?? "", "base64url");
    if (sig.length !== 64 || !verify(null, Buffer.from(text), this.extensionKey, sig)) return this.#err(401, "signature_invalid");
    this.nonces.add(nonce);
    return null;
  }

  #route(method: string, target: string, raw: Buffer, h: (n: string) => string | null): { status: number; body: unknown; headers?: Record<string, string> } {
    const url = new URL(target, "http://fake");
    const path = url.pathname;
    if (method === "POST" && path === "/ext/v1/token") {
      if (!this.active) return this.#err(401, "installation_inactive");
      const failed = this.#requestChecks(method, target, raw, h);
      if (failed) return failed;
      const body = JSON.parse(raw.toString() || "{}") as { installationId?: string };
      if (body.installationId !== this.installationId) return this.#err(401, "installation_inactive");
      this.renewals++;
      const token = this.issueToken();
      return { status: 200, body: { delegationToken: token, tokenExpiresAt: new Date(this.now() + this.ttlMs).toISOString() } };
    }
    // Checks 1–4.
    const m = /^Bearer ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(h("authorization") ?? "");
    if (!m || !verify(null, Buffer.from(`kith/delegation-token/1\n${Buffer.from(m[1] as string, "base64url").toString()}`), this.agentKey.publicKey, Buffer.from(m[2] as string, "base64url"))) return this.#err(401, "token_invalid");
    const payload = JSON.parse(Buffer.from(m[1] as string, "base64url").toString()) as { expiresAt: string; permissions: string[]; layers: string[]; maxAutonomyTier: string };
    if (this.now() >= Date.parse(payload.expiresAt)) return this.#err(401, "token_expired");
    if (createHash("sha256").update(`${m[1]}.${m[2]}`).digest("hex") !== this.tokenHash) return this.#err(401, "token_revoked");
    if (!this.active) return this.#err(401, "installation_inactive");
    const failed = this.#requestChecks(method, target, raw, h);
    if (failed) return failed;
    const rule = PERMISSION.find(([re]) => re.test(path));
    if (!rule) return this.#err(404, "not_found");
    if (rule[1] !== null && !payload.permissions.includes(rule[1])) return this.#err(403, "permission_missing", { required: rule[1] });
    const visible = this.contacts.filter((c) => payload.layers.includes(c.layer));
    const one = /^\/ext\/v1\/(connections|layers)\/([^/]+)$/.exec(path);
    if (one) {
      const c = visible.find((x) => x.contactId === decodeURIComponent(one[2] as string));
      return c ? { status: 200, body: { contactId: c.contactId, layer: c.layer } } : this.#err(404, "not_found");
    }
    switch (path) {
      case "/ext/v1/identity":
        return { status: 200, body: { agentId: this.agentId, installationId: this.installationId, extensionId: "com.example.test", permissions: payload.permissions, layers: payload.layers, maxAutonomyTier: payload.maxAutonomyTier, publicKeyMultibase: this.agentPublicKeyMultibase } };
      case "/ext/v1/connections":
        return { status: 200, body: { connections: visible.map((c) => ({ contactId: c.contactId, layer: c.layer, agentId: null })), total: visible.length } };
      case "/ext/v1/layers":
        return { status: 200, body: { layers: payload.layers, assignments: visible.map((c) => ({ contactId: c.contactId, layer: c.layer, health: c.band })), total: visible.length } };
      case "/ext/v1/decaying":
        return { status: 200, body: { graphVersion: "g1", computedAt: null, stale: false, total: 2, decaying: visible.filter((c) => c.band !== "healthy").map((c) => ({ ...c, daysSince: 30, expectedCadenceDays: 7, suggestedAction: "check_in" })) } };
      case "/ext/v1/health":
        return { status: 200, body: { overall: { size: visible.length, score: 50 }, layers: payload.layers.map((l) => ({ layer: l, size: visible.filter((c) => c.layer === l).length, score: 50 })) } };
      case "/ext/v1/clusters":
        return { status: 200, body: { clusters: [] } };
      case "/ext/v1/bridges":
        return { status: 200, body: { bridges: [] } };
      case "/ext/v1/profile":
        return { status: 200, body: { scope: "public", snapshot: { displayName: "Owner" } } };
      case "/ext/v1/agent/chat":
        return { status: 200, body: { reply: `echo: ${(JSON.parse(raw.toString()) as { message: string }).message}` } };
      case "/ext/v1/audit": {
        const limit = Math.min(Number(url.searchParams.get("limit") ?? 50), 200);
        const offset = Number(url.searchParams.get("offset") ?? 0);
        return { status: 200, body: { events: this.audit.slice(offset, offset + limit), total: this.audit.length } };
      }
      case "/ext/v1/events":
        return this.#events(url);
      case "/ext/v1/intents":
        return this.#intent(raw, h("idempotency-key"), payload);
    }
    return this.#err(404, "not_found");
  }

  #events(url: URL) {
    const latest = this.events.at(-1)?.seq ?? this.oldestAvailable - 1;
    const sinceText = url.searchParams.get("since");
    if (sinceText === null) return { status: 200, body: { streamId: this.streamId, events: [], nextSince: latest, hasMore: false, latest, oldestAvailable: this.oldestAvailable }, headers: { "retry-after": "5" } };
    const since = Number(sinceText);
    if (since > latest) return this.#err(400, "since_in_future", { latest, streamId: this.streamId });
    const limit = Number(url.searchParams.get("limit") ?? 100);
    const kinds = url.searchParams.get("kinds")?.split(",") ?? null;
    const scanned = this.events.filter((e) => e.seq > since).slice(0, limit);
    const events = scanned.filter((e) => !kinds || kinds.some((k) => (k.endsWith(".*") ? e.kind.startsWith(k.slice(0, -1)) : e.kind === k)));
    const nextSince = scanned.at(-1)?.seq ?? Math.max(since, this.oldestAvailable - 1);
    const body: Record<string, unknown> = { streamId: this.streamId, events, nextSince, hasMore: nextSince < latest, latest, oldestAvailable: this.oldestAvailable };
    if (since < this.oldestAvailable - 1) body.gap = { reason: "since_before_retention", from: since + 1, to: this.oldestAvailable - 1 };
    const headers: Record<string, string> = events.length === 0 ? { "retry-after": "5" } : {};
    return { status: 200, body, headers };
  }

  #intent(raw: Buffer, key: string | null, payload: { layers: string[]; maxAutonomyTier: string }) {
    if (key !== null && this.idempotency.has(key)) return this.idempotency.get(key) as { status: number; body: unknown };
    const body = JSON.parse(raw.toString()) as { to: string; intent: string; payload: unknown };
    if (!this.contacts.some((c) => c.contactId === body.to && payload.layers.includes(c.layer))) return this.#err(404, "not_found");
    const tier = INTENT_TIER[body.intent];
    if (!tier) return this.#err(403, "intent_not_declared");
    this.intentsSent.push(body);
    const answer = (TIER[tier] as number) > (TIER[payload.maxAutonomyTier] as number)
      ? { status: 202, body: { status: "pending_approval", approvalId: randomUUID() } }
      : { status: 200, body: { status: "queued", intentId: randomUUID() } };
    this.appendAudit("delegation.used", { intent: body.intent });
    if (key !== null) this.idempotency.set(key, answer);
    return answer;
  }
}

/** A fresh extension key for tests: the seed (for the SDK) and its raw public key (for the fake). */
export function extensionKeyPair(): { seed: Uint8Array; publicKey: Uint8Array } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  return { seed: new Uint8Array(Buffer.from(jwk.d as string, "base64url")), publicKey: new Uint8Array(rawPublicKey(publicKey)) };
}

export function seedToKeyObject(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), Buffer.from(seed)]), format: "der", type: "pkcs8" });
}
