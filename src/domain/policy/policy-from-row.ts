import { ownerPolicy } from "../../db/schema/index.ts";
import { canonicalAgents, canonicalMethod } from "./internal/principals.ts";
import { type OwnerPolicy, DEFAULT_POLICY } from "./owner-policy.ts";

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
