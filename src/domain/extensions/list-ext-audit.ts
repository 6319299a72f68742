import type { Ctx } from "../context.ts";
import { requireExtension } from "../internal/actors.ts";
import { listAuditEvents } from "../internal/audit-chain.ts";
import type { AuditEvent } from "../../ink/profiles.ts";
import type { AuditPageQuery } from "./list-ext-connections.ts";

/**
 * GET /ext/v1/audit: the calling installation's own chain, oldest first, in INK's audit record
 * form (AUDIT.md §2); verify it with verifyAuditEventChain and each agentSignature with the
 * agent card's keys. `total` is the chain's length.
 */
export function listExtAudit(ctx: Ctx, query: AuditPageQuery): { events: Array<AuditEvent & { agentSignature: string }>; total: number; limit: number; offset: number } {
  const actor = requireExtension(ctx);
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const page = listAuditEvents(ctx.db, actor.installationId, limit, offset);
  return { events: page.events as Array<AuditEvent & { agentSignature: string }>, total: page.total, limit, offset };
}
