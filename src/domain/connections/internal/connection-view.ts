import type { connections, DunbarLayer, HealthBand } from "../../../db/schema/index.ts";
import { iso } from "../../internal/iso.ts";

export interface ConnectionView {
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
  /** The layer in force: the owner's override, else the computed one. Owner API only. */
  layer: DunbarLayer;
  layerOverride: DunbarLayer | null;
  computedLayer: DunbarLayer;
  /** Private health band (never shown to peers or on the card); null until first computed. */
  health: HealthBand | null;
  healthScore: number | null;
  healthFactors: Record<string, number> | null;
  source: "ink" | "linkedin";
  email: string | null;
  company: string | null;
  position: string | null;
  linkedinUrl: string | null;
}

export function connectionView(row: typeof connections.$inferSelect): ConnectionView {
  return {
    id: row.id,
    agentId: row.agentId,
    handle: row.handle,
    displayName: row.displayName,
    status: row.status,
    initiatedBy: row.initiatedBy,
    cardUrl: row.cardUrl,
    profileSnapshot: row.profileSnapshotJson ? JSON.parse(row.profileSnapshotJson) : null,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
    connectedAt: iso(row.connectedAt),
    lastMessageAt: iso(row.lastMessageAt),
    layer: row.layerOverride ?? row.layer,
    layerOverride: row.layerOverride,
    computedLayer: row.layer,
    health: row.health,
    healthScore: row.healthScore,
    healthFactors: row.relationshipJson ? JSON.parse(row.relationshipJson) : null,
    source: row.source,
    email: row.email,
    company: row.company,
    position: row.position,
    linkedinUrl: row.linkedinUrl,
  };
}
