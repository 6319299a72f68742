import { formatTimestamp, signTransport } from "../../../ink/index.ts";
import { nativeEd25519Sign } from "../../../security/ed25519-native.ts";
import type { PeerFailure, PeerResponse } from "../../../adapters/peer-http.ts";
import type { With } from "../../context.ts";
import { activeSigningKey } from "../../agent/active-signing-key.ts";
import { cachedOwnIdentity } from "../../agent/cached-own-identity.ts";
import type { HomeRequestKind } from "./authenticate-home.ts";

/** The longest mailbox answer read: 16 items of ≤ 64 KiB, base64url, with their headers. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

/**
 * A signed request of this (home) node to its mailbox (KITH_MAILBOX_URL): `network.ink.<kind>`
 * from and to its own agent id, under its INK transport signature over the path posted to, through
 * the SSRF-safe peer client. The mailbox checks it in internal/authenticate-home.ts.
 */
export async function homeRequest(ctx: With<"node" | "vault" | "peers">, kind: HomeRequestKind, members: Record<string, unknown>, options: { timeoutMs: number; signal?: AbortSignal }): Promise<PeerResponse | PeerFailure> {
  const base = ctx.node.mailboxUrl;
  const own = cachedOwnIdentity(ctx.db, ctx.node);
  const key = activeSigningKey(ctx.db, ctx.vault);
  if (!base || !own || !key) return { ok: false, reason: "invalid_url", detail: "no mailbox configured, no agent or no signing key" };
  const action = kind.slice("mailbox_".length);
  const url = `${base}/ink/v1/${encodeURIComponent(own.agentId)}/${action}`;
  const body = {
    protocol: "ink/0.1",
    type: `network.ink.${kind}`, // the neutral spelling every wordmark accepts (INK §3.4)
    from: own.agentId,
    to: own.agentId,
    nonce: Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url"),
    timestamp: formatTimestamp(ctx.clock.now()),
    ...members,
  };
  const signed = signTransport({ method: "POST", path: new URL(url).pathname, recipientDid: own.agentId, body, timestamp: body.timestamp }, key.privateKey, key.keyId, nativeEd25519Sign);
  if (!signed.ok) return { ok: false, reason: "invalid_url", detail: signed.reason };
  return ctx.peers.http.request(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", authorization: signed.authorization },
    body: JSON.stringify(body),
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    maxBytes: MAX_ANSWER_BYTES,
  });
}
