import { buildSignedEnvelope, decodeX25519PublicKey, formatTimestamp, prepareOutbound, type EnvelopeDraft } from "../../src/ink/index.ts";
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
    secretKey: key.privateKey,
    keyId: options.keyId === undefined ? key.keyId : options.keyId,
    wordmark,
  });
  if (!prepared.ok) throw new Error(`cannot prepare: ${prepared.reason}`);
  return { body: prepared.bodyText, authorization: prepared.authorization, envelope: prepared.body, path: prepared.path };
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
