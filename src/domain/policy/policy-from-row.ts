import { ownerPolicy } from "../../db/schema/index.ts";
import { canonicalAgents, canonicalMethod } from "./internal/principals.ts";
import { type OwnerPolicy, DEFAULT_POLICY } from "./owner-policy.ts";
import { parseStringList } from "../internal/string-list.ts";

type PolicyRow = Omit<typeof ownerPolicy.$inferSelect, "acceptForeignAgents"> & { acceptForeignAgents: boolean | number };

// Every inbound intent reads the policy row twice (authentication, then the verb) and the lists in
// it are JSON with each entry canonicalized: the last row seen and what it gave are kept, and a row
// equal in every column gives the same (frozen) policy. A changed row is parsed again, so an owner's
// edit counts from the very next request.
let last: { row: PolicyRow; policy: OwnerPolicy } | null = null;

export function policyFromRow(row: PolicyRow | null | undefined): OwnerPolicy {
  if (!row) return DEFAULT_POLICY;
  if (last !== null && sameRow(last.row, row)) return last.policy;
  const policy: OwnerPolicy = Object.freeze({
    maxAutonomyLevel: row.maxAutonomyLevel,
    trustedDids: frozen(canonicalAgents(parseStringList(row.trustedDidsJson))),
    maxInboundRate: row.maxInboundRate,
    acceptForeignAgents: !!row.acceptForeignAgents,
    allowedMethods: frozen([...new Set(parseStringList(row.allowedMethodsJson).map(canonicalMethod))]),
    allowedHosts: frozen(parseStringList(row.allowedHostsJson)),
    allowedDids: frozen(canonicalAgents(parseStringList(row.allowedDidsJson))),
    blockedDids: frozen(canonicalAgents(parseStringList(row.blockedDidsJson))),
    updatedAt: row.updatedAt,
  });
  last = { row: { ...row }, policy };
  return policy;
}

const frozen = (list: string[]): string[] => Object.freeze(list) as string[];

function sameRow(a: PolicyRow, b: PolicyRow): boolean {
  const keys = Object.keys(b) as Array<keyof PolicyRow>;
  if (keys.length !== Object.keys(a).length) return false;
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}
