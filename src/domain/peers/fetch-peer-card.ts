import { checkCardFetchResponse, type AgentCard, type CardFetchFailure } from "../../ink/index.ts";
import type { PeerFailureReason, PeerHttp } from "../../security/peer-http.ts";

export type FetchCardResult =
  | { ok: true; card: AgentCard; cardJson: string }
  | { ok: false; reason: CardFetchFailure | PeerFailureReason; detail?: string; httpStatus?: number };

const CARD_TIMEOUT_MS = 5_000;

/**
 * GET a card under the discovery-fetch contract (INK §12): through the SSRF gate, no redirects,
 * 64 KiB cap, 5 s deadline, then the response decision (status 200, JSON content type, size,
 * schema, agentId binding, URL fields vetted).
 */
export async function fetchPeerCard(
  http: PeerHttp,
  input: { cardUrl: string; agentId: string; allowPrivatePeers: boolean },
): Promise<FetchCardResult> {
  const res = await http.request(input.cardUrl, { headers: { accept: "application/json" }, timeoutMs: CARD_TIMEOUT_MS, maxBytes: 65_536 });
  if (!res.ok) return { ok: false, reason: res.reason, detail: res.detail };
  const checked = checkCardFetchResponse({
    status: res.status,
    contentType: res.headers.get("content-type"),
    contentLength: res.headers.get("content-length"),
    body: res.body,
    requestedAgentId: input.agentId,
    resolutionDid: null,
    allowPrivateHosts: input.allowPrivatePeers,
  });
  if (!checked.ok) return { ok: false, reason: checked.reason, httpStatus: res.status, ...(checked.issue ? { detail: checked.issue } : {}) };
  return { ok: true, card: checked.card, cardJson: JSON.stringify(checked.card) };
}
