import type { Db, Tx } from "../../db/client.ts";
import type { NodeIdentity } from "../context.ts";
import type { AgentRow } from "../agent/find-agent-row.ts";
import { findListing, type ListingRow } from "./internal/listings.ts";
import { ownPrincipal } from "./internal/own-publication.ts";

/** This node's own listing row (source `self`), null when the owner never published. */
export function findOwnListing(db: Db | Tx, agent: Pick<AgentRow, "genesisKey">, wordmark: NodeIdentity["wordmark"]): ListingRow | null {
  const principal = ownPrincipal(agent, wordmark);
  const row = principal ? findListing(db, principal) : null;
  return row?.source === "self" ? row : null;
}
