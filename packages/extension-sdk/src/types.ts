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

export type Connection = { contactId: string; layer?: Layer; displayName?: string; agentId?: string | null; [member: string]: unknown };
export type LayerAssignment = { contactId: string; layer: Layer; [member: string]: unknown };

export type DecayingContact = {
  contactId: string;
  layer: Layer;
  band: Band;
  daysSince?: number | null;
  expectedCadenceDays?: number;
  suggestedAction?: string;
  [member: string]: unknown;
};

export type NetworkHealth = { score?: number; layers?: Array<{ layer: Layer; size: number; score: number; [member: string]: unknown }>; [member: string]: unknown };
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
export type ChatReply = { reply: string; [member: string]: unknown };
