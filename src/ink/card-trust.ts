// The whole INK §13 decision on a fetched Agent Card, in the order the reference verifier takes:
// the card proof and its rooting, then the ratchet and continuity against the last authenticated
// card of the principal (a warm verifier), and the staged Phase C rule for unsigned cards and
// unreachable did:web documents. Reasons and audit events are INK's (`agent-card-signature`,
// `agent-card-signature-phase-c` vectors). Choices: docs/decisions/ink-card-signature.md.
import { isPlainObject } from "./bytes.ts";
import { checkContinuityFromAuthenticated, type ContinuityFailure } from "./card-continuity.ts";
import { type CardProofFailure, type CardProofResult, verifyAgentCardProof } from "./card-signature.ts";
import type { Ed25519Verifier } from "./ed25519.ts";
import { KEY_DERIVED_PREFIXES } from "./principal.ts";

/** What resolving a did:web principal's DID document gave (its Ed25519 verification keys). */
export type DidWebResolution = { status: "resolved"; keys: readonly Uint8Array[] } | { status: "unavailable" };

export type CardTrustOptions = {
  /** The principal the card was fetched for; rooting and Phase C classify this id. */
  agentId: string;
  /**
   * The last authenticated (signed, verified) card cached for this principal: a warm verifier.
   * Absent or null: cold. Pass only a card that was authenticated; an unsigned cached card sets no
   * ratchet (the caller keeps it as a plain cache entry).
   */
  cachedCard?: unknown;
  /** did:web principals: the DID document's keys, or that it could not be fetched (absent = unavailable). */
  didWeb?: DidWebResolution | null;
  /**
   * INK §13 Phase C (staged, default off): refuse unsigned cards outright, and fail closed when a
   * cold did:web verifier cannot resolve the document. The flag alone decides, never a version string.
   */
  enforcePhaseC?: boolean;
  verifier?: Ed25519Verifier;
};

export type CardTrustFailure = CardProofFailure | ContinuityFailure | "unsigned_1_0_profile" | "unsigned_key_derived_1_0" | "didweb_resolver_unavailable";

export type CardTrustResult =
  | { ok: true; reason: "signed_authenticated"; proof: Extract<CardProofResult, { kind: "signed" }>; auditEvent?: "card.anchor_unverified" }
  | { ok: true; reason: "unsigned_first_contact_accepted"; proof: Extract<CardProofResult, { kind: "unsigned" }> }
  | { ok: false; reason: CardTrustFailure; issue: string; auditEvent?: "card.continuity_violation" };

/**
 * Decide whether a schema-valid card may be trusted for `agentId`. Unsigned: refused after an
 * authenticated card was seen (`unsigned_after_authenticated`, the ratchet wins over Phase C),
 * refused under Phase C, else accepted as first contact. Signed: the proof must verify and root
 * (a present invalid proof is never demoted to unsigned); an unresolved did:web document leaves it
 * `card.anchor_unverified` (warm, or cold without Phase C) or fails closed (cold under Phase C);
 * then, warm, continuity with the cached card (`card.continuity_violation`). Never throws.
 */
export function authenticateAgentCard(card: unknown, options: CardTrustOptions): CardTrustResult {
  if (!isPlainObject(card) || card.agentId !== options.agentId) return fail("invalid_card", "the card is not a JSON object naming the requested agentId");
  const didWeb = options.agentId.startsWith("did:web:");
  const resolved = options.didWeb?.status === "resolved" ? options.didWeb.keys : null;
  const proof = verifyAgentCardProof(card, { ...(options.verifier ? { verifier: options.verifier } : {}), didWebKeys: resolved });
  if (!proof.ok) return fail(proof.reason, proof.issue);
  const warm = options.cachedCard !== undefined && options.cachedCard !== null;
  const phaseC = options.enforcePhaseC === true;
  if (proof.kind === "unsigned") {
    if (warm) return fail("unsigned_after_authenticated", "an authenticated card of this principal was seen; an unsigned one is refused");
    if (!phaseC) return { ok: true, reason: "unsigned_first_contact_accepted", proof };
    return KEY_DERIVED_PREFIXES.some((p) => options.agentId.startsWith(p))
      ? fail("unsigned_key_derived_1_0", "a key-derived principal's card must be signed (Phase C)")
      : fail("unsigned_1_0_profile", "unsigned cards are refused (Phase C)");
  }
  const unverifiedAnchor = didWeb && proof.anchor === "unanchored";
  if (unverifiedAnchor && !warm && phaseC) return fail("didweb_resolver_unavailable", "the did:web document could not be resolved to anchor the signer (Phase C, cold)");
  if (warm) {
    const continuity = checkContinuityFromAuthenticated(options.cachedCard, card, options.verifier);
    if (!continuity.ok) return { ...continuity, auditEvent: "card.continuity_violation" };
  }
  return unverifiedAnchor ? { ok: true, reason: "signed_authenticated", proof, auditEvent: "card.anchor_unverified" } : { ok: true, reason: "signed_authenticated", proof };
}

function fail(reason: CardTrustFailure, issue: string): CardTrustResult {
  return { ok: false, reason, issue };
}
