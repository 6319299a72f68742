import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { ownerPolicy } from "../../db/schema/index.ts";
import type { Ctx } from "../context.ts";
import { DomainError } from "../errors.ts";
import { canonicalAgents, canonicalMethod } from "./internal/principals.ts";
import { requireOwner } from "../internal/actors.ts";

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

export function getPolicy(db: Db | Tx): OwnerPolicy {
  return policyFromRow(db.select().from(ownerPolicy).where(eq(ownerPolicy.id, 1)).get());
}

export function policyFromRow(row: (Omit<typeof ownerPolicy.$inferSelect, "acceptForeignAgents"> & { acceptForeignAgents: boolean | number }) | null | undefined): OwnerPolicy {
  if (!row) return DEFAULT_POLICY;
  return {
    maxAutonomyLevel: row.maxAutonomyLevel,
    trustedDids: canonicalAgents(parseList(row.trustedDidsJson)),
    maxInboundRate: row.maxInboundRate,
    acceptForeignAgents: !!row.acceptForeignAgents,
    allowedMethods: [...new Set(parseList(row.allowedMethodsJson).map(canonicalMethod))],
    allowedHosts: parseList(row.allowedHostsJson),
    allowedDids: canonicalAgents(parseList(row.allowedDidsJson)),
    blockedDids: canonicalAgents(parseList(row.blockedDidsJson)),
    updatedAt: row.updatedAt,
  };
}

function parseList(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

export interface PolicyView extends Omit<OwnerPolicy, "updatedAt"> {
  updatedAt: string | null;
}

/** `GET /api/svc/policy`: the policy in force (the defaults until the owner writes one). */
export function getOwnerPolicy(ctx: Ctx): PolicyView {
  requireOwner(ctx, "reads the policy");
  return policyView(getPolicy(ctx.db));
}

export function policyView(p: OwnerPolicy): PolicyView {
  const { updatedAt, ...rest } = p;
  return { ...rest, updatedAt: updatedAt === null ? null : new Date(updatedAt).toISOString() };
}
