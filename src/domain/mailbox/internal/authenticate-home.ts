import { authenticateSignedRequest, inspectSignedRequest, resolveSenderKeys, type AgentCard, type InboundReason } from "../../../ink/index.ts";
import { nativeStrictVerifier } from "../../../security/ed25519-native.ts";
import type { With } from "../../context.ts";
import { findGrant } from "./find-grant.ts";
import type { GrantRow } from "./mailbox-view.ts";

export type HomeRequestKind = "mailbox_drain" | "mailbox_ack" | "mailbox_card";
export type HomeRefusalReason = InboundReason | "unknown_recipient" | "not_mailbox_agent" | "nonce_replay" | "invalid_card";
export type HomeRefusal = { ok: false; reason: HomeRefusalReason; detail?: string };
export type HomeRequest = { ok: true; grant: GrantRow; body: Record<string, unknown>; nonce: string };

/**
 * A request of the home agent to its own mailbox (drain, ack, card): an INK signed request
 * (`network.ink.<kind>`, `from` = `to` = the home's agent id) under an INK transport signature
 * bound to the path posted to (INK §6), fresh, by the keys of the card the home published here —
 * or, before it published one, the genesis key of its key-derived id. The caller records `nonce`
 * (scope: the home's principal) in its own write, and refuses a conflict.
 */
export function authenticateHome(
  ctx: With<"node">,
  input: { agentId: string; kind: HomeRequestKind; body: Uint8Array; authorization: string | null; path: string; maxBytes: number },
  /** The card request: the card it carries, once checked, is the key source (a home that rotated its keys can still publish). */
  keyCard?: (body: Record<string, unknown>, grant: GrantRow) => { ok: true; card: AgentCard | null } | HomeRefusal,
): HomeRequest | HomeRefusal {
  const grant = findGrant(ctx.db, input.agentId);
  if (!grant) return { ok: false, reason: "unknown_recipient" };
  const policy = { ownAgentId: grant.agentId, path: input.path, wordmark: ctx.node.wordmark, typeSuffix: input.kind, maxBodyBytes: input.maxBytes };
  const pending = inspectSignedRequest({ body: input.body, authorization: input.authorization, now: ctx.clock.now() }, policy);
  if (!pending.ok) return pending;
  if (pending.principal !== grant.principal) return { ok: false, reason: "not_mailbox_agent" };
  const carried = keyCard ? keyCard(pending.body, grant) : null;
  if (carried && !carried.ok) return carried;
  const keys = resolveSenderKeys({ card: carried?.card ?? publishedCard(grant), agentId: grant.agentId });
  const accepted = authenticateSignedRequest(pending, { keys, verifier: nativeStrictVerifier });
  if (!accepted.ok) return accepted;
  return { ok: true, grant, body: pending.body, nonce: pending.nonce };
}

/** The card the home published here (checked when it was published), or null. */
export function publishedCard(grant: GrantRow): AgentCard | null {
  if (!grant.cardJson) return null;
  try {
    return JSON.parse(grant.cardJson) as AgentCard;
  } catch {
    return null;
  }
}
