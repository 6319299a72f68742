import type { Db, Tx } from "../../db/client.ts";
import type { ProfileSnapshot as InkProfileSnapshot } from "../../ink/index.ts";
import { findAgentRow } from "../agent/find-agent-row.ts";
import { findProfileSnapshot } from "./find-profile-snapshot.ts";

export type ProfileSnapshot = InkProfileSnapshot;

/**
 * The snapshot this node shares in a scope: `public` (the card, discovery, requests to strangers),
 * `connected` (connection responses, card queries from connections) or a custom scope. A scope the
 * owner has not written falls back to `public`, and `public` to a minimal snapshot from the agent.
 */
export function ownProfileSnapshot(db: Db | Tx, scope: string): ProfileSnapshot {
  return findProfileSnapshot(db, scope) ?? findProfileSnapshot(db, "public") ?? defaultSnapshot(db);
}

function defaultSnapshot(db: Db | Tx): ProfileSnapshot {
  const agent = findAgentRow(db as Db);
  return { headline: agent?.displayName ?? "", skills: [], interests: [], openTo: [], ...(agent ? { availability: { timezone: agent.timezone } } : {}) };
}
