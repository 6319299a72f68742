import { eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { agentKeys, connections } from "../../db/schema/index.ts";
import type { RotationLinkKey } from "../../ink/index.ts";
import { generateAgentKey, newKeyId, type AgentKey, type KeyRole } from "../../security/agent-keys.ts";
import type { Ctx, With } from "../context.ts";
import { conflict, notFound } from "../internal/errors.ts";
import { enqueueOutbound } from "../messages/enqueue-outbound.ts";
import { findAgentRow } from "../agent/find-agent-row.ts";
import { changeKeys } from "./internal/key-change.ts";
import { keyRow } from "./internal/key-row.ts";
import { planKeySetChange, publishKeySetChange } from "./internal/rotation-links.ts";
import { requireOwner } from "../internal/actors.ts";

/** A revocation notice older than this is not worth delivering: the peer's card cache has expired by then. */
const ANNOUNCE_TTL_MS = 24 * 60 * 60 * 1000;

export interface RevocationResult {
  revokedKeyId: string;
  role: KeyRole;
  revokedAt: string;
  /** The new key of the same role that took over, when the revoked key was the active one. */
  replacementKeyId: string | null;
  keySetVersion: number;
}

/**
 * Emergency revocation (INK §10, SPEC's `revoked`): the key never verifies again, not even what it
 * signed before. The key's entry stays on the card as `revoked` with `revokedAt`, `keySetVersion`
 * goes up and the card's `rotationChain` gains a link stating the new signing set (INK §13), all in
 * one transaction, so the card changes at once, also on a running node. Revoking the active key of
 * a role makes a new active key of that role in the same step (a card always has a signer, and
 * confidential intents an encryption key); its private half is written to agent-key.json first,
 * under the same lock as a rotation (internal/key-change.ts). A new signing key is announced to
 * every connected peer (`announce`); other peers follow at their next card fetch.
 */
export function revokeKey(
  ctx: With<"vault" | "wake">,
  input: { keyId: string },
  options: { generateKey?: (role: KeyRole, keyId: string, nowMs: number) => AgentKey } = {},
): RevocationResult {
  requireOwner(ctx, "can revoke keys");
  const { target, replacement, now, keySetVersion } = changeKeys(ctx, (tx, now) => {
    if (!findAgentRow(tx)) throw notFound("agent");
    const target = tx.select().from(agentKeys).where(eq(agentKeys.keyId, input.keyId)).get();
    if (!target) throw notFound(`key ${JSON.stringify(input.keyId)}`);
    if (target.status === "revoked") throw conflict(`key ${target.keyId} is already revoked (since ${new Date(target.revokedAt ?? 0).toISOString()})`);
    const privateKeyOf = (keyId: string) => ctx.vault.find(keyId)?.privateKey ?? null;
    const replaces = target.status === "active";
    // Dry run with a placeholder: refuse (chain or card full, a private half missing) before a key is made.
    planKeySetChange(tx, revoked(target.keyId, replaces ? { keyId: "~next", publicKeyMultibase: "", role: target.role } : null), privateKeyOf);
    const replacement = replaces ? (options.generateKey ?? generateAgentKey)(target.role, newKeyId(target.role, now), now) : null;
    if (replacement) ctx.vault.append(replacement);
    const plan = planKeySetChange(tx, revoked(target.keyId, replacement), privateKeyOf);
    tx.update(agentKeys).set({ status: "revoked", revokedAt: now }).where(eq(agentKeys.keyId, target.keyId)).run();
    if (replacement) tx.insert(agentKeys).values(keyRow(replacement, now)).run();
    const keySetVersion = publishKeySetChange(tx, plan, now);
    if (replacement?.role === "signing") announce(tx, ctx, target.keyId, keySetVersion, now);
    return { target, replacement, now, keySetVersion };
  });
  const result = { revokedKeyId: target.keyId, role: target.role, revokedAt: new Date(now).toISOString(), replacementKeyId: replacement?.keyId ?? null, keySetVersion };
  ctx.log.info("key revoked", { ...result });
  ctx.wake.outbox();
  return result;
}

/**
 * A ping to every connected peer, queued with the revocation: the outbox signs it with the new key,
 * which the peer's cached card does not list, so the peer fetches the card again at once (INK §6.3,
 * §10) and from then on refuses the revoked key, instead of trusting its cache for up to an hour.
 */
function announce(tx: Tx, ctx: Ctx, keyId: string, keySetVersion: number, now: number): void {
  const peers = tx.select({ principal: connections.principal, agentId: connections.agentId }).from(connections).where(eq(connections.status, "connected")).all();
  const note = `Key ${keyId} of this agent was revoked; its card is at key set version ${keySetVersion}. Refuse anything signed by that key.`;
  for (const peer of peers) {
    if (!peer.principal || !peer.agentId) continue;
    enqueueOutbound(tx, ctx.ids, { peerPrincipal: peer.principal, peerAgentId: peer.agentId, intent: "ping", payload: { note }, expiresAt: now + ANNOUNCE_TTL_MS }, now);
  }
}

/** The signing set after the revocation (an encryption key's revocation keeps it, at a new version). */
function revoked(keyId: string, replacement: Pick<AgentKey, "keyId" | "publicKeyMultibase" | "role"> | null) {
  return (signing: RotationLinkKey[]): RotationLinkKey[] => {
    const after = signing.map((k) => (k.keyId === keyId ? { ...k, status: "revoked" as const } : k));
    if (replacement?.role === "signing") after.push({ keyId: replacement.keyId, publicKeyMultibase: replacement.publicKeyMultibase, status: "active" });
    return after;
  };
}
