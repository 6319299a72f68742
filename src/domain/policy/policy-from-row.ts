import { ownerPolicy } from "../../db/schema/index.ts";
import { canonicalAgents, canonicalMethod } from "./internal/principals.ts";
import { type OwnerPolicy, DEFAULT_POLICY } from "./owner-policy.ts";
import { parseStringList } from "../internal/string-list.ts";

export function policyFromRow(row: (Omit<typeof ownerPolicy.$inferSelect, "acceptForeignAgents"> & { acceptForeignAgents: boolean | number }) | null | undefined): OwnerPolicy {
  if (!row) return DEFAULT_POLICY;
  return {
    maxAutonomyLevel: row.maxAutonomyLevel,
    trustedDids: canonicalAgents(parseStringList(row.trustedDidsJson)),
    maxInboundRate: row.maxInboundRate,
    acceptForeignAgents: !!row.acceptForeignAgents,
    allowedMethods: [...new Set(parseStringList(row.allowedMethodsJson).map(canonicalMethod))],
    allowedHosts: parseStringList(row.allowedHostsJson),
    allowedDids: canonicalAgents(parseStringList(row.allowedDidsJson)),
    blockedDids: canonicalAgents(parseStringList(row.blockedDidsJson)),
    updatedAt: row.updatedAt,
  };
}
