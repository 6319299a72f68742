/**
 * What the owner API answers about extensions and the marketplace (docs/extensions.md, SPEC
 * "Owner extension management", "Marketplace"), as the console reads it.
 */
export interface Installation {
  installationId: string;
  extensionId: string;
  name: string;
  version: string;
  manifestHash: string;
  source: "inline" | "url" | "marketplace";
  status: "active" | "pending_update" | "uninstalled";
  permissions: string[];
  layers: string[];
  maxAutonomyTier: Tier;
  pendingUpdate: { version: string; manifestHash: string } | null;
  tokenExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type Tier = "transactional" | "social" | "personal";
export const TIERS: Tier[] = ["transactional", "social", "personal"];
export const TIER_LABELS: Record<Tier, string> = {
  transactional: "Transactional: pings and logistics only",
  social: "Social: everyday messages to your contacts",
  personal: "Personal: anything you could send yourself",
};

export interface Grant {
  permissions: string[];
  layers: string[];
  maxAutonomyTier: Tier;
}

/** One requested permission as a consent screen shows it. */
export interface AskedPermission {
  name: string;
  required: boolean;
  reason: string;
  title: string;
}

export interface MarketSummary {
  extensionId: string;
  name: string;
  summary: string;
  publisher: { name: string; domain: string; verified: boolean };
  latestVersion: string;
  categories: string[];
  listingState: string;
  reviewStats: { count: number; average: number | null };
}

/** What a consent screen shows: from the marketplace, or the node's preview of a manifest at a URL (no rating, no badge). */
export interface ConsentDetails {
  extensionId: string;
  name: string;
  summary: string;
  version: string;
  publisher: { name: string; domain: string; verified?: boolean };
  reviewStats?: { count: number; average: number | null };
  manifestHash: string;
  permissionsSummary: AskedPermission[];
  layersRequested: { requested: string[]; reason: string } | null;
  maxAutonomyTier: Tier | null;
  intents: string[];
}

export interface MarketDetails extends MarketSummary, Omit<ConsentDetails, "version" | "publisher" | "reviewStats"> {
  versions: Array<{ version: string; reviewState: string; publishedAt: string | null }>;
}

export interface Submission {
  extensionId: string;
  version: string;
  manifestHash: string;
  reviewState: string;
  reasons: Array<{ code: string; message: string }>;
  manifest: Record<string, unknown>;
  submittedAt: string | null;
  reviewedAt: string | null;
}

/** The marketplace's public reads (no owner token; rate-limited per IP, so read once, not on every tick). */
export const marketPath = (extensionId: string) => `/marketplace/extensions/${encodeURIComponent(extensionId)}`;

/** Plain words for a permission the node names in code (the marketplace's titles, for installs that did not come with them). */
const TITLES: Record<string, string> = {
  "connections:list": "See your contacts in the chosen circles",
  "layers:read": "See circle membership and relationship health",
  "graph:read:clusters:summary": "See how your contacts group together",
  "graph:read:clusters:members": "See who is in each group",
  "graph:read:bridges": "See who connects your groups",
  "events:subscribe": "Be told when things change",
  "profile:read": "Read your public profile",
  "intents:send": "Send messages for you (tier-limited)",
  "agent.chat": "Talk to your agent",
};
export const permissionTitle = (name: string) => TITLES[name] ?? name;
