import { eq } from "drizzle-orm";
import { transaction } from "../../db/client.ts";
import { mailboxGrants } from "../../db/schema/index.ts";
import { authenticateAgentCard, bindAgentCard, validateAgentCard, type AgentCard } from "../../ink/index.ts";
import { nativeStrictVerifier } from "../../security/ed25519-native.ts";
import type { With } from "../context.ts";
import { recordNonce } from "../peers/record-nonce.ts";
import { authenticateHome, publishedCard, type HomeRefusal } from "./internal/authenticate-home.ts";
import { mailboxEndpointOf } from "./internal/mailbox-paths.ts";
import type { GrantRow } from "./internal/mailbox-view.ts";

/** A card and its signed request stay within INK's 64 KiB card cap plus the request's members. */
const MAX_CARD_REQUEST_BYTES = 72 * 1024;

export type PublishCardOutcome = { ok: true; keySetVersion: number | null } | HomeRefusal;

/**
 * The home agent publishes the card this node serves for it (a signed `mailbox_card` with `card`).
 * Kept only if peers would accept it from the home itself: INK §11 schema, its own agent id, a
 * signed proof rooted in that id (INK §13, Phase C for this one card: a mailbox never serves an
 * unsigned card), continuity with the card served so far (no lower `keySetVersion`, a signer
 * reachable from it), and an `endpoint` that is this mailbox (else peers would not come here).
 * The request is verified under that card's keys (so a home that rotated keys can publish).
 * `card: null` withdraws the card (the home made it private): the path answers 404 again.
 */
export function publishMailboxCard(ctx: With<"node">, input: { agentId: string; body: Uint8Array; authorization: string | null; path: string }): PublishCardOutcome {
  const auth = authenticateHome(ctx, { ...input, kind: "mailbox_card", maxBytes: MAX_CARD_REQUEST_BYTES }, (body, grant) => checkCard(ctx, body.card, grant));
  if (!auth.ok) return auth;
  const { grant } = auth;
  const card = auth.body.card as AgentCard | null;
  const now = ctx.clock.now();
  const keySetVersion = card === null ? null : typeof card.keySetVersion === "number" ? card.keySetVersion : 0;
  return transaction(ctx.db, (tx): PublishCardOutcome => {
    if (!recordNonce(ctx.db, grant.principal, auth.nonce, now)) return { ok: false, reason: "nonce_replay" };
    // The card as sent (unknown members preserved: the proof covers them, INK §3.2).
    const cardJson = card === null ? null : JSON.stringify(card);
    tx.update(mailboxGrants).set({ cardJson, cardKeySetVersion: keySetVersion, cardPublishedAt: now }).where(eq(mailboxGrants.id, grant.id)).run();
    return { ok: true, keySetVersion };
  });
}

function checkCard(ctx: With<"node">, value: unknown, grant: GrantRow): { ok: true; card: AgentCard | null } | HomeRefusal {
  if (value === null) return { ok: true, card: null };
  const schema = validateAgentCard(value);
  if (!schema.ok) return { ok: false, reason: "invalid_card", detail: schema.issue };
  const card = schema.card;
  if (card.agentId !== grant.agentId) return { ok: false, reason: "invalid_card", detail: "agentId: not this mailbox's agent" };
  const endpoint = mailboxEndpointOf(ctx.node.publicUrl, grant.agentId).url;
  if (card.endpoint !== endpoint) return { ok: false, reason: "invalid_card", detail: `endpoint: must be ${endpoint}` };
  const trust = authenticateAgentCard(card, { agentId: grant.agentId, cachedCard: publishedCard(grant), enforcePhaseC: true, verifier: nativeStrictVerifier });
  if (!trust.ok) return { ok: false, reason: "invalid_card", detail: `${trust.reason}: ${trust.issue}` };
  const bound = bindAgentCard(card, trust.proof);
  if (!bound.ok) return { ok: false, reason: "invalid_card", detail: bound.issue };
  return { ok: true, card: bound.card };
}
