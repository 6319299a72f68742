import type { Ctx } from "../context.ts";
import { requireOwner } from "../internal/actors.ts";
import { listAuditEvents, verifyAuditChain } from "../internal/audit-chain.ts";
import { notFound } from "../internal/errors.ts";
import type { AuditEvent } from "../../ink/profiles.ts";
import type { AuditPageQuery } from "./list-ext-connections.ts";
import { findInstallation } from "./internal/installation-row.ts";

export interface InstallationAudit {
  /** Stored events are signed (appendAuditEvent). */
  events: Array<AuditEvent & { agentSignature: string }>;
  total: number;
  limit: number;
  offset: number;
  /** The whole stored chain re-checked (AUDIT.md §3): +1 sequences from 1, each link the hash of its predecessor. */
  chain: { verified: boolean; reason?: string; index?: number };
}

/**
 * GET /api/svc/extensions/{id}/audit: the owner's view of an installation's chain, newest first
 * (the owner reads what happened last; an extension's own /ext/v1/audit is oldest first for
 * verification), in the same INK record form. Kept after an uninstall, so it is readable then too.
 */
export function listInstallationAudit(ctx: Ctx, id: string, query: AuditPageQuery): InstallationAudit {
  requireOwner(ctx, "reads an installation's audit trail");
  if (!findInstallation(ctx.db, id)) throw notFound("installation");
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const page = listAuditEvents(ctx.db, id, limit, offset, true);
  const check = verifyAuditChain(ctx.db, id);
  // verifyAuditEventChain accepts a slice starting anywhere; a whole chain must start at 1 with no predecessor
  const first = listAuditEvents(ctx.db, id, 1, 0).events[0];
  const rooted = first === undefined || (first.sequence === 1 && first.previousEventHash === null);
  const chain = !check.ok ? { verified: false, reason: check.reason, index: check.index } : rooted ? { verified: true } : { verified: false, reason: "sequence_gap", index: 0 };
  return { events: page.events as InstallationAudit["events"], total: page.total, limit, offset, chain };
}
