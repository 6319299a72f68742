import { eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { connections } from "../../db/schema/index.ts";
import { authenticateSignedRequest, inspectSignedRequest, type InboundReason } from "../../ink/index.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import type { With } from "../context.ts";
import { insertNonce, isNonceSeen } from "../federation/inbound-nonces.ts";
import { ownIdentity } from "../federation/own-identity.ts";
import { savePeerCard } from "../peers/peer-cards.ts";
import { resolveInboundSenderKeys } from "../peers/resolve-sender-keys.ts";
import { ownProfileSnapshot, type ProfileSnapshot } from "../profile/own-snapshot.ts";
import { getAgentCard, type AgentCard } from "./agent-card.ts";
import { signOwnCard } from "./sign-own-card.ts";

export type CardQueryResult =
  | { ok: true; card: AgentCard & { profileSnapshot: ProfileSnapshot }; scope: "connected" | "public" }
  | { ok: false; reason: InboundReason | "unknown_recipient" | "rate_limited"; detail?: string; retryAfterSeconds?: number };

const PER_REQUESTER = { limit: 30, windowMs: 60_000 };

/**
 * `POST /ink/v1/{agentId}/agent-card-query` (containment profile, INK §12): a requester proves who
 * it is with an INK transport signature over `{protocol, type: network.<w>.agent_card_query, from,
 * to, nonce, timestamp}`; connections get the card with the `connected` profile snapshot, anyone
 * else the `public` one; a private card only to connections (anyone else: as if there were no
 * agent). Replays are refused like intents.
 */
export async function queryAgentCard(
  ctx: With<"node" | "vault" | "peers" | "limiter">,
  input: { pathAgentId: string; body: Uint8Array; authorization: string | null; requestPath: string },
): Promise<CardQueryResult> {
  const now = ctx.clock.now();
  const own = ownIdentity(ctx.db, ctx.node);
  if (!own || input.pathAgentId !== own.agentId) return { ok: false, reason: "unknown_recipient" };
  const pending = inspectSignedRequest({ body: input.body, authorization: input.authorization, now }, { ownAgentId: own.agentId, path: input.requestPath, wordmark: ctx.node.wordmark, typeSuffix: "agent_card_query" });
  if (!pending.ok) return pending;
  // A replayed nonce resolves keys from what is stored only: it makes the node fetch nothing.
  const network = !isNonceSeen(ctx.db, pending.principal, pending.nonce);
  const resolved = await resolveInboundSenderKeys(ctx, { from: pending.from, principal: pending.principal, keyIdHint: pending.keyIdHint, network });
  const accepted = authenticateSignedRequest(pending, { keys: resolved.keys, verifier: nativeStrictVerifier });
  const learned = resolved.learned;
  const replayed = transaction(ctx.db, (tx) => {
    if (learned) savePeerCard(tx, learned, now);
    if (!accepted.ok) return false;
    return !insertNonce(tx, accepted.principal, accepted.nonce, now);
  });
  if (!accepted.ok) return accepted;
  if (replayed) return { ok: false, reason: "nonce_replay" };
  // Charged only for an authenticated, fresh request: forged ones cannot spend an agent's budget.
  const limited = ctx.limiter.consume("card-query", accepted.principal, PER_REQUESTER, now);
  if (!limited.allowed) return { ok: false, reason: "rate_limited", retryAfterSeconds: limited.retryAfterSeconds };
  const connection = ctx.db.select({ status: connections.status }).from(connections).where(eq(connections.principal, accepted.principal)).get();
  const scope = connection?.status === "connected" ? "connected" : "public";
  const card = getAgentCard(ctx);
  // A private card (SPEC: 404 "absent or private") is answered to connections only.
  if (!card || (card.visibility === "private" && scope !== "connected")) return { ok: false, reason: "unknown_recipient" };
  // The snapshot is part of what the proof covers: sign the card as it is answered (INK §13).
  return { ok: true, scope, card: signOwnCard(ctx, { ...card, profileSnapshot: ownProfileSnapshot(ctx.db, scope) }) };
}
