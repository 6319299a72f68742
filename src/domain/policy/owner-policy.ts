export type AutonomyLevel = "none" | "draft_only" | "auto_respond" | "full";

/** Lists of agents hold canonical principals (INK §2.2: `key:z…` for every spelling of a key). */
export interface OwnerPolicy {
  maxAutonomyLevel: AutonomyLevel;
  trustedDids: string[];
  /** Inbound intents per hour per sender (PRODUCT-SURFACE §3 `maxInboundRate`). */
  maxInboundRate: number;
  acceptForeignAgents: boolean;
  allowedMethods: string[];
  allowedHosts: string[];
  allowedDids: string[];
  blockedDids: string[];
  updatedAt: number | null;
}

/**
 * Safe defaults: nothing is acted on without the owner (`draft_only`), and connection requests
 * from strangers are accepted into pending approvals (DESIGN "Federation").
 */
export const DEFAULT_POLICY: OwnerPolicy = {
  maxAutonomyLevel: "draft_only",
  trustedDids: [],
  maxInboundRate: 10,
  acceptForeignAgents: true,
  allowedMethods: [],
  allowedHosts: [],
  allowedDids: [],
  blockedDids: [],
  updatedAt: null,
};
