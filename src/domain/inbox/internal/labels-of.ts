import { asc, inArray } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";
import { messageLabels } from "../../../db/schema/index.ts";

/** Labels of each message (put there by automation rules), by local message id. */
export function labelsOf(db: Db, messageIds: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (messageIds.length === 0) return out;
  const rows = db.select().from(messageLabels).where(inArray(messageLabels.messageId, messageIds)).orderBy(asc(messageLabels.label)).all();
  for (const r of rows) out.set(r.messageId, [...(out.get(r.messageId) ?? []), r.label]);
  return out;
}
