import { sha256 } from "@noble/hashes/sha2.js";
import { eq } from "drizzle-orm";
import { decidePending } from "../../src/domain/approvals/decide-pending.ts";
import { listPending } from "../../src/domain/approvals/list-pending.ts";
import { addConnection } from "../../src/domain/connections/add-connection.ts";
import { connections } from "../../src/db/schema/index.ts";
import { canonicalize, ed25519PublicKey, ed25519Sign, encodeEd25519PublicKey } from "../../src/ink/index.ts";
import type { NetworkNode, TestNode } from "./boot.ts";
import { asOwner } from "./owner.ts";
import { seed } from "./personas.ts";

/** The "acme" extension persona: a fixed Ed25519 key per generation. */
export function acmeKey(generation = 0): { secretKey: Uint8Array; publicKey: Uint8Array; multibase: string } {
  const secretKey = seed("acme", "extension", generation);
  const publicKey = ed25519PublicKey(secretKey);
  return { secretKey, publicKey, multibase: encodeEd25519PublicKey(publicKey) };
}

/** A valid manifest for com.acme.keepintouch asking for everything the runtime serves. */
export function acmeManifest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return JSON.parse(JSON.stringify({
    manifestVersion: 1,
    id: "com.acme.keepintouch",
    version: "1.0.0",
    name: "Keep in touch",
    summary: "Reminds you of people you have not talked to in a while",
    publisher: { name: "Acme", domain: "acme.com" },
    links: { privacyPolicy: "https://acme.com/privacy" },
    keys: [{ keyId: "acme-0", algorithm: "Ed25519", publicKeyMultibase: acmeKey(0).multibase, status: "active" }],
    permissions: [
      { name: "connections:list", required: true, reason: "To list the people you keep in touch with" },
      { name: "layers:read", required: false, reason: "To know how close each contact is" },
      { name: "events:subscribe", required: false, reason: "To notice changes without polling everything" },
      { name: "profile:read", required: false, reason: "To greet contacts with your public profile" },
      { name: "intents:send", required: false, reason: "To ping contacts you have not talked to" },
    ],
    layers: { requested: ["inner", "active", "sympathy"], reason: "Only your closer circles matter here" },
    maxAutonomyTier: "social",
    intents: ["ping", "ask"],
    events: ["connection.*", "relationship.*", "intent.*", "approval.*", "installation.*", "profile.*"],
    ...overrides,
  }));
}

export function manifestHash(manifest: unknown): string {
  const jcs = canonicalize(manifest);
  if (!jcs.ok) throw new Error(jcs.reason);
  return `sha256:${Buffer.from(sha256(new TextEncoder().encode(jcs.text))).toString("hex")}`;
}

export const FULL_GRANT = { permissions: ["connections:list", "layers:read", "events:subscribe", "profile:read", "intents:send"], layers: ["inner", "active"], maxAutonomyTier: "transactional" };

export interface Installed {
  installationId: string;
  token: string;
  body: Record<string, any>;
}

/** Installs acme inline with `grant` (default FULL_GRANT) and returns its id and first token. */
export async function installAcme(node: TestNode, options: { manifest?: Record<string, unknown>; grant?: Record<string, unknown> } = {}): Promise<Installed> {
  const manifest = options.manifest ?? acmeManifest();
  const res = await asOwner(node, "/api/svc/extensions/install", { body: { source: "inline", manifest, manifestHash: manifestHash(manifest), grant: options.grant ?? FULL_GRANT } });
  const body = (await res.json()) as Record<string, any>;
  if (res.status !== 201) throw new Error(`install answered ${res.status}: ${JSON.stringify(body)}`);
  return { installationId: body.installation.installationId, token: body.delegationToken, body };
}

/** The three signature headers of an extension request, signed as docs/extensions.md says. */
export function signExtensionRequest(
  method: string,
  target: string,
  body: string,
  options: { secretKey?: Uint8Array; nonce?: string; timestamp?: string } = {},
): Record<string, string> {
  const nonce = options.nonce ?? crypto.randomUUID();
  const timestamp = options.timestamp ?? new Date().toISOString();
  const hash = Buffer.from(sha256(new TextEncoder().encode(body))).toString("hex");
  const message = `${method}\n${target}\n${nonce}\n${timestamp}\n${hash}`;
  const signature = Buffer.from(ed25519Sign(new TextEncoder().encode(message), options.secretKey ?? acmeKey(0).secretKey)).toString("base64url");
  return { "x-request-nonce": nonce, "x-request-timestamp": timestamp, "x-extension-signature": signature };
}

/** A signed /ext/v1 request through the in-process app, timestamped on the node's clock. */
export function extRequest(
  node: TestNode,
  token: string | null,
  method: string,
  target: string,
  options: { body?: unknown; secretKey?: Uint8Array; nonce?: string; timestamp?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const text = options.body === undefined ? "" : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    ...signExtensionRequest(method, target, text, { ...options, timestamp: options.timestamp ?? new Date(node.clock.now()).toISOString() }),
    ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
    ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
    ...options.headers,
  };
  return node.request(target, { method, headers, ...(options.body !== undefined ? { body: text } : {}) });
}

/** POST /ext/v1/token signed with acme's key: the fresh token (throws on a refusal). */
export async function renewToken(node: TestNode, installationId: string): Promise<string> {
  const body = JSON.stringify({ installationId });
  const headers = signExtensionRequest("POST", "/ext/v1/token", body, { timestamp: new Date(node.clock.now()).toISOString() });
  const res = await node.request("/ext/v1/token", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
  if (res.status !== 200) throw new Error(`renewal answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { delegationToken: string }).delegationToken;
}

/** Alice connects to Bob, Bob's owner accepts, and Alice puts him in her inner layer; returns Alice's connection row. */
export async function connectInInnerCircle(alice: NetworkNode, bob: NetworkNode): Promise<typeof connections.$inferSelect> {
  const owner = { kind: "owner", subject: "owner" } as const;
  await addConnection(alice.ctx(owner), { cardUrl: bob.cardUrl!, context: "We met at the conference" });
  await alice.drainOutbox();
  decidePending(bob.ctx(owner), listPending(bob.ctx(owner), {}).items[0]!.id, { decision: "approve" });
  await bob.drainOutbox();
  const contact = alice.db.select().from(connections).where(eq(connections.agentId, bob.agentId!)).get()!;
  if (contact.status !== "connected") throw new Error(`connection is ${contact.status}`);
  const res = await asOwner(alice, `/api/svc/connections/${contact.id}`, { method: "PATCH", body: { layer: "inner" } });
  if (res.status !== 200) throw new Error(`PATCH layer answered ${res.status}`);
  return contact;
}
