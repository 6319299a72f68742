import { buildSignedEnvelope, decodeX25519PublicKey, formatTimestamp, prepareOutbound, type EnvelopeDraft } from "../../src/ink/index.ts";
import { nobleEnvelopeCrypto } from "../../src/ink/encryption-noble.ts";
import type { AgentKey } from "../../src/security/agent-keys.ts";
import type { TestNode } from "./boot.ts";
import { personaKey, type PersonaName } from "./personas.ts";

let counter = 0;
export const freshNonce = () => `nonce${String(++counter).padStart(12, "0")}${Math.random().toString(36).slice(2, 10)}`;

export interface SignedRequest {
  body: string;
  authorization: string;
  envelope: Record<string, unknown>;
  path: string;
}

/**
 * What a peer sends: an envelope from `persona` (its genesis key unless `generation` says
 * otherwise) to `recipient`, body-signed, sealed when confidential, transport-signed over the
 * recipient's endpoint path.
 */
export function signedIntent(
  persona: PersonaName,
  recipient: TestNode,
  overrides: Partial<EnvelopeDraft> & { intent: string; payload: Record<string, unknown> },
  options: { generation?: number; wordmark?: "svc" | "tulpa"; keyId?: string | null; now?: number } = {},
): SignedRequest {
  const key = personaKey(persona, "signing", options.generation ?? 0);
  const wordmark = options.wordmark ?? "svc";
  const now = options.now ?? recipient.clock.now();
  const from = `${wordmark}:${personaKey(persona, "signing", 0).publicKeyMultibase}`;
  const draft: EnvelopeDraft = {
    protocol: "ink/0.1",
    id: `msg-${persona}-${++counter}`,
    correlationId: `thread-${counter}`,
    createdAt: formatTimestamp(now),
    from,
    to: recipient.agentId!,
    timestamp: formatTimestamp(now),
    nonce: freshNonce(),
    signingKeyId: key.keyId,
    ...overrides,
  };
  const built = buildSignedEnvelope(draft, key.privateKey, wordmark);
  if (!built.ok) throw new Error(`cannot build: ${built.reason} ${built.issue ?? ""}`);
  const endpoint = `${recipient.publicUrl}/ink/v1/${recipient.agentId}/intent`;
  const prepared = prepareOutbound({
    envelope: built.envelope,
    recipient: { agentId: recipient.agentId!, endpoint, encryptionKey: recipientEncryptionPublicKey(recipient) },
    envelopeCrypto: nobleEnvelopeCrypto,
    secretKey: key.privateKey,
    keyId: options.keyId === undefined ? key.keyId : options.keyId,
    wordmark,
  });
  if (!prepared.ok) throw new Error(`cannot prepare: ${prepared.reason}`);
  return { body: prepared.bodyText, authorization: prepared.authorization, envelope: prepared.body, path: prepared.path };
}

/**
 * What an agent that is not a persona sends (a did:web, a key-derived id of some key): `from`
 * signs with `key`, no encryption; `hint` puts the key id in the body and the header.
 */
export function signedIntentFrom(
  key: AgentKey,
  from: string,
  recipient: TestNode,
  intent: string,
  payload: Record<string, unknown>,
  options: { hint?: boolean; extra?: Partial<EnvelopeDraft> } = {},
): SignedRequest {
  const now = formatTimestamp(recipient.clock.now());
  const draft = { protocol: "ink/0.1", id: `m-${freshNonce()}`, correlationId: `t-${freshNonce()}`, createdAt: now, from, to: recipient.agentId!, intent, payload, timestamp: now, nonce: freshNonce(), ...(options.hint ? { signingKeyId: key.keyId } : {}), ...options.extra };
  const built = buildSignedEnvelope(draft as EnvelopeDraft, key.privateKey, "svc");
  if (!built.ok) throw new Error(built.reason);
  const endpoint = `${recipient.publicUrl}/ink/v1/${recipient.agentId}/intent`;
  const req = prepareOutbound({ envelope: built.envelope, recipient: { agentId: recipient.agentId!, endpoint }, secretKey: key.privateKey, keyId: options.hint ? key.keyId : null, wordmark: "svc" });
  if (!req.ok) throw new Error(req.reason);
  return { body: req.bodyText, authorization: req.authorization, envelope: req.body, path: req.path };
}

function recipientEncryptionPublicKey(node: TestNode): Uint8Array | null {
  const enc = node.vault.all().find((k) => k.role === "encryption");
  if (!enc) return null;
  return decodeX25519PublicKey(enc.publicKeyMultibase); // what the recipient's card publishes
}

/** POST a signed request to a node's INK endpoint through its app (no network). */
export function postIntent(node: TestNode, req: SignedRequest, init: { path?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
  return node.request(init.path ?? `/ink/v1/${encodeURIComponent(node.agentId!)}/intent`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: req.authorization, ...init.headers },
    body: init.body ?? req.body,
  });
}
