import { and, asc, eq, gte, lte, sql } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { auditEvents } from "../../db/schema/index.ts";
import type { AuditEvent } from "../../ink/profiles.ts";

/**
 * Events of chain `chainId`, oldest first: all of them, or the contiguous slice from the first to
 * the last event about one message (`messageId`, the envelope id as on the wire). A slice, not a
 * filter: INK's consumer checks +1 continuity (AUDIT §4), so events between them come along.
 */
export function listAuditEvents(db: Db | Tx, chainId: string, filter: { messageId?: string } = {}): AuditEvent[] {
  let where = eq(auditEvents.chainId, chainId);
  if (filter.messageId !== undefined) {
    const span = db
      .select({ first: sql<number | null>`min(${auditEvents.sequence})`, last: sql<number | null>`max(${auditEvents.sequence})` })
      .from(auditEvents)
      .where(and(eq(auditEvents.chainId, chainId), sql`json_extract(${auditEvents.eventJson}, '$.messageId') = ${filter.messageId}`))
      .get();
    if (span?.first == null || span.last == null) return [];
    where = and(where, gte(auditEvents.sequence, span.first), lte(auditEvents.sequence, span.last))!;
  }
  return db
    .select({ eventJson: auditEvents.eventJson })
    .from(auditEvents)
    .where(where)
    .orderBy(asc(auditEvents.sequence))
    .all()
    .map((r) => JSON.parse(r.eventJson) as AuditEvent);
}
