import { peerCards } from "../../db/schema/index.ts";

export type PeerCardRow = typeof peerCards.$inferSelect;

/** How long a verified card is used before it is fetched again. */
export const CARD_TTL_MS = 60 * 60 * 1000;
/** A stale card still serves while its host is unreachable, but not forever (revocations must land). */
export const STALE_CARD_GRACE_MS = 24 * 60 * 60 * 1000;
/** At most one refetch per principal in this period when a request names an unknown key id. */
export const REFRESH_THROTTLE_MS = 60 * 1000;

export interface PeerCardUpdate {
  principal: string;
  agentId: string;
  cardUrl?: string | null;
  card?: { json: string; signingSet: boolean } | null;
  refreshAttempt?: boolean;
}

