import type { EventRow } from "../../internal/events.ts";
import type { ExtensionActor } from "../../context.ts";

/** An event as the extension feed shows it (EXTENSIONS §3.2). */
export interface FeedEvent {
  seq: number;
  id: string;
  kind: string;
  occurredAt: string;
  subject: { type: string; id: string; layer?: string };
  data: Record<string, unknown>;
  v: 1;
}

/** What the node logged, as the extension feed may show it: kind, subject, data and the permission it needs. */
export interface Mapped {
  kind: string;
  permission: string | null;
  subject: { type: string; id: string };
  /** The contact whose layer decides visibility at read time (connection events). */
  contactId?: string;
  /** The installation the event belongs to, when only that installation may see it. */
  ownedBy?: string;
  /** Graph events: the data per audience (domain/network/audience-key.ts); no entry for the caller's layers, no event. */
  audiences?: Record<string, Record<string, unknown>>;
  data: Record<string, unknown>;
}

const CONNECTION_KINDS: Record<string, string> = {
  "connection.accepted": "connection.added",
  "connection.declined": "connection.removed",
  "connection.blocked": "connection.removed",
  "connection.disconnected": "connection.removed",
};

const INTENT_STATUS: Record<string, string> = { "message.queued": "queued", "message.held": "pending_approval", "message.delivered": "delivered", "message.rejected": "failed" };

/**
 * The kinds of EXTENSIONS §3.2 from the node's one event log, decided per row; null for what no
 * extension ever sees. Data stays minimal: extensions read details from the resource endpoints.
 */
export function mapEvent(row: EventRow): Mapped | null {
  const data = row.dataJson ? (JSON.parse(row.dataJson) as Record<string, unknown>) : {};
  const subjectId = row.subjectId ?? "";
  const connectionKind = CONNECTION_KINDS[row.type];
  if (connectionKind) return { kind: connectionKind, permission: "connections:list", subject: { type: "contact", id: subjectId }, contactId: subjectId, data: {} };
  switch (row.type) {
    case "connection.layer_changed":
      return { kind: "connection.layer_changed", permission: "layers:read", subject: { type: "contact", id: subjectId }, contactId: subjectId, data: { from: data.from, to: data.to } };
    case "relationship.health_changed":
      return { kind: "relationship.health_changed", permission: "layers:read", subject: { type: "contact", id: subjectId }, contactId: subjectId, data: { from: data.from, to: data.to } };
    case "cluster.recomputed":
    case "bridge.changed": {
      const audiences = data.audiences && typeof data.audiences === "object" ? (data.audiences as Record<string, Record<string, unknown>>) : {};
      const permission = row.type === "cluster.recomputed" ? "graph:read:clusters:summary" : "graph:read:bridges";
      return { kind: row.type, permission, subject: { type: "graph", id: String(data.graphVersion ?? "") }, audiences, data: {} };
    }
    case "profile.updated":
      return subjectId === "public" ? { kind: "profile.updated", permission: "profile:read", subject: { type: "profile", id: "public" }, data: { snapshot: "public" } } : null;
    case "installation.updated":
      return { kind: "installation.updated", permission: null, subject: { type: "installation", id: subjectId }, ownedBy: subjectId, data: { permissions: data.permissions, layers: data.layers, maxAutonomyTier: data.maxAutonomyTier, ...(typeof data.suspended === "boolean" ? { suspended: data.suspended } : {}) } };
    case "approval.approved":
    case "approval.rejected":
      if (typeof data.installationId !== "string") return null;
      return { kind: "approval.resolved", permission: "intents:send", subject: { type: "approval", id: subjectId }, ownedBy: data.installationId, data: { approvalId: subjectId, outcome: row.type === "approval.approved" ? "approved" : "declined" } };
    default: {
      const status = INTENT_STATUS[row.type];
      if (!status || typeof data.installationId !== "string") return null;
      return { kind: "intent.status_changed", permission: "intents:send", subject: { type: "intent", id: subjectId }, ownedBy: data.installationId, data: { intentId: subjectId, status } };
    }
  }
}

/** Manifest `events[]` and query `kinds` patterns: exact kinds or `noun.*`. */
export function kindMatches(patterns: readonly string[], kind: string): boolean {
  return patterns.some((p) => p === kind || p === "*" || (p.endsWith(".*") && kind.startsWith(p.slice(0, -1))));
}

/** Whether an extension sees a mapped event at read time: permission, ownership, kinds. */
export function visibleTo(actor: ExtensionActor, m: Mapped, kinds: readonly string[] | null): boolean {
  if (m.permission !== null && !actor.permissions.includes(m.permission)) return false;
  if (m.ownedBy !== undefined && m.ownedBy !== actor.installationId) return false;
  return kinds === null || kindMatches(kinds, m.kind);
}
