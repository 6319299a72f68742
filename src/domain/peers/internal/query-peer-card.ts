import { eq } from "drizzle-orm";
import { connections } from "../../../db/schema/index.ts";
import { formatTimestamp, normalizePrincipal, signTransport } from "../../../ink/index.ts";
import { nativeEd25519Sign } from "../../../security/ed25519-native.ts";
import type { PeerFailure, PeerResponse } from "../../../adapters/peer-http.ts";
import type { Ctx, With } from "../../context.ts";
import { ownIdentity } from "../../agent/own-identity.ts";
import { activeSigningKey } from "../../agent/active-signing-key.ts";

const QUERY_TIMEOUT_MS = 5_000;

/**
 * A connection whose card answers 404 on the public path may have made it private (SPEC: "404 when
 * the agent is absent or private"): ask again with the signed card query (INK §12 containment),
 * `POST <card URL minus agent.json>agent-card-query`, which a node answers to its connections. Only
 * for connected peers (a stranger's 404 stays a 404), and only on INK's discovery path. Null when
 * it does not apply; otherwise the peer's answer, checked by the caller like any card fetch.
 */
export async function queryPeerCard(ctx: With<"node" | "vault" | "peers">, input: { cardUrl: string; agentId: string }): Promise<PeerResponse | PeerFailure | null> {
  const principal = normalizePrincipal(input.agentId);
  if (!principal.ok) return null;
  const connection = ctx.db.select({ status: connections.status }).from(connections).where(eq(connections.principal, principal.principal)).get();
  if (connection?.status !== "connected") return null;
  const suffix = `/ink/v1/${encodeURIComponent(input.agentId)}/agent.json`;
  if (!input.cardUrl.endsWith(suffix)) return null;
  const url = `${input.cardUrl.slice(0, -"agent.json".length)}agent-card-query`;
  const own = ownIdentity(ctx.db, ctx.node);
  const key = activeSigningKey(ctx.db, ctx.vault);
  if (!own || !key) return null;
  const body = {
    protocol: "ink/0.1",
    type: "network.ink.agent_card_query", // the neutral spelling every wordmark accepts (INK §3.4)
    from: own.agentId,
    to: input.agentId,
    nonce: Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url"),
    timestamp: formatTimestamp(ctx.clock.now()),
  };
  const signed = signTransport({ method: "POST", path: new URL(url).pathname, recipientDid: input.agentId, body, timestamp: body.timestamp }, key.privateKey, key.keyId, nativeEd25519Sign);
  if (!signed.ok) return null;
  // Two private peers with stale caches would query each other in a loop (each answer needs the
  // other's card first): one query per peer at a time; the inner one falls back to the stale card.
  let pending = inFlight.get(ctx.db);
  if (!pending) inFlight.set(ctx.db, (pending = new Set()));
  if (pending.has(principal.principal)) return null;
  pending.add(principal.principal);
  try {
    return await ctx.peers.http.request(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", authorization: signed.authorization },
      body: JSON.stringify(body),
      timeoutMs: QUERY_TIMEOUT_MS,
      maxBytes: 65_536,
    });
  } finally {
    pending.delete(principal.principal);
  }
}

const inFlight = new WeakMap<Ctx["db"], Set<string>>();
