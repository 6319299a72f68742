// Shapes of the /ext/v1 answers (SPEC "Extension API"; docs/extensions.md). Members the node may add
// later stay readable through the index signatures; the SDK never drops what it receives.

export type Layer = "inner" | "active" | "sympathy" | "recognition" | "known" | (string & {});
export type AutonomyTier = "transactional" | "social" | "personal" | (string & {});
export type Band = "strong" | "healthy" | "cooling" | "at_risk" | "dormant" | (string & {});

export type Identity = {
  agentId: string;
  installationId?: string;
  extensionId?: string;
  permissions?: string[];
  layers?: Layer[];
  maxAutonomyTier?: AutonomyTier;
  publicKeyMultibase?: string;
  [member: string]: unknown;
};

export type Connection = {
  contactId: string;
  layer: Layer;
  agentId: string | null;
  handle?: string | null;
  displayName?: string | null;
  status?: string;
  connectedAt?: string | null;
  lastMessageAt?: string | null;
  [member: string]: unknown;
};
export type LayerAssignment = { contactId: string; layer: Layer; health?: Band | null; [member: string]: unknown };

/** Analyses of the contact graph carry when they ran and whether a recompute is due. */
export type GraphHeader = { graphVersion?: string; computedAt?: string | null; stale?: boolean };

export type DecayingContact = {
  contactId: string;
  /** Only with `connections:list`. */
  name?: string;
  layer: Layer;
  band: Band;
  daysSince: number;
  expectedCadenceDays: number;
  trend?: number | null;
  reciprocity?: number | null;
  isBridge?: boolean;
  priority?: number;
  suggestedAction: "follow_up" | "check_in" | "note" | "save_for_later" | (string & {});
  [member: string]: unknown;
};

export type NetworkHealth = {
  layers: Array<{ layer: Layer; size: number; nominalSize?: number; bands?: Record<string, number>; medianRatio?: number | null; score: number | null; [member: string]: unknown }>;
  overall?: { size: number; score: number | null };
  [member: string]: unknown;
};
export type Cluster = { clusterId: string; label?: string; size: number; members?: Array<{ contactId: string; layer?: Layer; isConnector?: boolean }>; [member: string]: unknown };
export type Bridge = { contactId: string; clusters?: Array<{ from: string; to: string; edgesBetween: number }>; [member: string]: unknown };

export type FeedEvent = {
  seq: number;
  id: string;
  kind: string;
  occurredAt?: string;
  recordedAt?: string;
  subject?: { type: string; id: string; layer?: Layer };
  data?: Record<string, unknown>;
  v?: number;
  [member: string]: unknown;
};

export type EventsPage = {
  streamId: string;
  events: FeedEvent[];
  nextSince: number;
  hasMore?: boolean;
  latest?: number;
  oldestAvailable?: number;
  gap?: { reason: string; from: number; to: number };
  [member: string]: unknown;
};

export type IntentRequest = { to: string; intent: string; payload: Record<string, unknown>; correlationId?: string; [member: string]: unknown };
export type IntentResult =
  | { status: "pending_approval"; approvalId: string; [member: string]: unknown }
  | { status: string; intentId?: string; messageId?: string; [member: string]: unknown };

export type AuditEntry = {
  id: string;
  version: string;
  agentId: string;
  sequence: number;
  previousEventHash: string | null;
  eventType: string;
  timestamp: string;
  agentSignature: string;
  signingKeyId?: string;
  data?: Record<string, unknown>;
  [member: string]: unknown;
};

export type AuditPage = { events: AuditEntry[]; total?: number; [member: string]: unknown };
export type ChatReply = { reply: string; backend?: "builtin" | "llm" | (string & {}); [member: string]: unknown };
