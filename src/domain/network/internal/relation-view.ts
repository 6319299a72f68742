import type { contactRelations } from "../../../db/schema/index.ts";
import { iso } from "../../internal/iso.ts";

export function relationView(r: typeof contactRelations.$inferSelect) {
  return { id: r.id, contactA: r.aId, contactB: r.bId, source: r.source, weight: r.weight, createdAt: iso(r.createdAt)! };
}
