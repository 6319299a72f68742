import type { Db, Tx } from "../../db/client.ts";
import { findAgentRow } from "../identity/agent.ts";

export interface ProfileSnapshot {
  headline: string;
  skills: string[];
  interests: string[];
  openTo: string[];
  availability?: { timezone: string; meetingHours?: string; responseSla?: string };
}

/**
 * The snapshot this node shares in a scope (`public` in requests to strangers, `connected` with
 * connections). Until the owner writes one, a minimal valid snapshot from the agent's card data.
 */
export function ownProfileSnapshot(db: Db | Tx, _scope: "public" | "connected"): ProfileSnapshot {
  const agent = findAgentRow(db as Db);
  return { headline: agent?.displayName ?? "", skills: [], interests: [], openTo: [], ...(agent ? { availability: { timezone: agent.timezone } } : {}) };
}
