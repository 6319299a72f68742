import { api, type Page } from "./api.ts";
import { shortId } from "./format.ts";
import { useLoad } from "./live.ts";

export interface Connection {
  id: string;
  agentId: string | null;
  handle: string | null;
  displayName: string | null;
  status: string;
  initiatedBy: "us" | "them";
  cardUrl: string | null;
  profileSnapshot: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
  connectedAt: string | null;
  lastMessageAt: string | null;
  layer: string;
  layerOverride: string | null;
  computedLayer: string;
  health: string | null;
  healthScore: number | null;
  source: "ink" | "linkedin";
  email: string | null;
  company: string | null;
  position: string | null;
}

/** Everyone the node knows (first 200), to put names on agent ids in lists. */
export function usePeople() {
  const loaded = useLoad(() => api<Page<Connection>>("/connections?limit=200"), "people");
  const byAgent = new Map((loaded.data?.items ?? []).filter((c) => c.agentId).map((c) => [c.agentId!, c]));
  return {
    list: loaded.data?.items ?? [],
    find: (agentId: string | null | undefined) => (agentId ? byAgent.get(agentId) : undefined),
    name: (agentId: string | null | undefined) => {
      const c = agentId ? byAgent.get(agentId) : undefined;
      return c?.displayName || (c?.handle ? `@${c.handle}` : shortId(agentId));
    },
  };
}

export function personName(c: Pick<Connection, "displayName" | "handle" | "agentId">): string {
  return c.displayName || (c.handle ? `@${c.handle}` : shortId(c.agentId));
}

/** A connection's status and health in words and badge tones. */
export const STATUS_LABEL: Record<string, string> = {
  connected: "Connected",
  pending: "Wants to connect",
  requested: "Request sent",
  declined: "Declined",
  blocked: "Blocked",
  disconnected: "Disconnected",
  contact: "Contact",
};
export const HEALTH_TONE: Record<string, "good" | "neutral" | "warn" | "bad"> = { strong: "good", healthy: "good", cooling: "warn", at_risk: "bad", dormant: "neutral" };
