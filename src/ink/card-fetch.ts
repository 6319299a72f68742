// The discovery-fetch response contract (INK §12): what a fetched card response must satisfy
// before the card is trusted. First failure rejects.
import { type AgentCard, validateAgentCard } from "./agent-card.ts";
import { isPlainObject } from "./bytes.ts";
import { type CardProofFailure, type CardProofOptions, type CardProofResult, verifyAgentCardProof } from "./card-signature.ts";
import { classifyHost } from "./hostname.ts";
import { parseRawBody } from "./raw-body.ts";

export const MAX_CARD_BYTES = 65_536;

export type CardFetchResponse = {
  status: number;
  contentType: string | null | undefined;
  contentLength: string | null | undefined;
  /** Response body as received (bytes), or its text. */
  body: Uint8Array | string;
  /** The agent id the card was fetched for (byte-exact binding). */
  requestedAgentId: string;
  /** Non-null only when resolution started at an owner's DID document (anti-substitution). */
  resolutionDid: string | null | undefined;
  /** Skip the SSRF vetting of URL fields (operator-configured bases and tests only). */
  allowPrivateHosts?: boolean;
  /**
   * Options of the card-proof step (INK §13, after the owner binding): the Ed25519 backend and,
   * for did:web ids, the resolved DID document's keys. The step always runs: a present
   * `cardSignature` must verify and be rooted, else `invalid_card_proof`.
   */
  proof?: CardProofOptions;
};

/** A proof that passed: the card is unsigned, or signed by a rooted (or unanchored did:web) key. */
export type AcceptedCardProof = Extract<CardProofResult, { ok: true }>;

export type CardFetchFailure =
  | "status"
  | "content_length"
  | "content_type"
  | "body_too_large"
  | "invalid_body"
  | "invalid_card"
  | "agent_id_mismatch"
  | "owner_mismatch"
  | "invalid_card_proof"
  | "private_host";

export type CardFetchResult =
  | { ok: true; card: AgentCard; proof: AcceptedCardProof }
  | { ok: false; reason: CardFetchFailure; issue?: string; proofFailure?: CardProofFailure };

/**
 * Apply INK §12's response decision: status 200 → Content-Length cap (canonical integers only) →
 * Content-Type `application/json` (utf-8 charset if any) → body ≤ 65 536 UTF-8 bytes → raw gate
 * and parse → card schema (protocol ink/0.1) → agentId binding → owner binding → (with `proof`)
 * the card proof and its rooting → every URL field through the SSRF classifier.
 */
export function checkCardFetchResponse(res: CardFetchResponse): CardFetchResult {
  if (res === null || typeof res !== "object") return fail("invalid_body");
  if (res.status !== 200) return fail("status");
  if (typeof res.contentLength === "string" && /^(0|[1-9][0-9]*)$/.test(res.contentLength)) {
    const cl = res.contentLength;
    if (cl.length > 5 || Number(cl) > MAX_CARD_BYTES) return fail("content_length");
  }
  if (!isJsonContentType(res.contentType)) return fail("content_type");
  const parsed = parseRawBody(res.body, MAX_CARD_BYTES);
  if (!parsed.ok) return parsed.reason === "body_too_large" ? fail("body_too_large") : fail("invalid_body", parsed.reason);
  if (!isPlainObject(parsed.value)) return fail("invalid_card", "not a JSON object");
  const card = validateAgentCard(parsed.value);
  if (!card.ok) return fail("invalid_card", card.issue);
  if (card.card.agentId !== res.requestedAgentId) return fail("agent_id_mismatch");
  const resolutionDid = res.resolutionDid;
  if (typeof resolutionDid === "string" && card.card.ownerDid !== undefined && card.card.ownerDid !== resolutionDid) {
    return fail("owner_mismatch");
  }
  const proof = verifyAgentCardProof(card.card, res.proof ?? {});
  if (!proof.ok) return { ok: false, reason: "invalid_card_proof", issue: `${proof.reason}: ${proof.issue}`, proofFailure: proof.reason };
  if (res.allowPrivateHosts !== true) {
    for (const url of cardUrls(card.card)) {
      if (classifyHost(new URL(url).hostname) !== "public") return fail("private_host", url);
    }
  }
  return { ok: true, card: card.card, proof };
}

/**
 * INK §12 step 3: present, trimmed, non-empty, no comma; media type `application/json`
 * (case-insensitive); a `charset` parameter, if any, is `utf-8` (case-insensitive, may be quoted).
 */
export function isJsonContentType(value: unknown): boolean {
  if (typeof value !== "string") return false;
  const ct = value.trim();
  if (ct === "" || ct.includes(",")) return false;
  const [media = "", ...params] = ct.split(";");
  if (media.trim().toLowerCase() !== "application/json") return false;
  for (const param of params) {
    const eq = param.indexOf("=");
    const name = (eq < 0 ? param : param.slice(0, eq)).trim().toLowerCase();
    if (name !== "charset") continue;
    let v = eq < 0 ? "" : param.slice(eq + 1).trim();
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    if (v.toLowerCase() !== "utf-8") return false;
  }
  return true;
}

/** Every URL-shaped field of a card that must pass the SSRF gate (INK §12, §14). */
export function cardUrls(card: AgentCard): string[] {
  const urls = [card.endpoint];
  if (card.inboxEndpoint !== undefined) urls.push(card.inboxEndpoint);
  for (const s of card.capabilities.thirdPartyAudit?.services ?? []) urls.push(s.endpoint);
  return urls;
}

function fail(reason: CardFetchFailure, issue?: string): { ok: false; reason: CardFetchFailure; issue?: string } {
  return issue === undefined ? { ok: false, reason } : { ok: false, reason, issue };
}
