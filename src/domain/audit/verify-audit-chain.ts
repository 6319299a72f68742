import type { Db } from "../../db/client.ts";
import { verifyAuditEventChain, type AuditChainResult } from "../../ink/profiles.ts";
import { listAuditEvents } from "./list-audit-events.ts";

/** Re-checks a whole stored chain by INK's slice rules (AUDIT §3): +1 sequences, each link the hash of its predecessor. */
export function verifyAuditChain(db: Db, chainId: string): AuditChainResult {
  return verifyAuditEventChain(listAuditEvents(db, chainId));
}
