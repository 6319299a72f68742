import type { pendingActions } from "../../../db/schema/index.ts";
import { type MessageView } from "../../messages/message-view.ts";
import { iso } from "../../internal/iso.ts";

export interface PendingActionView {
  id: string;
  kind: (typeof pendingActions.$inferSelect)["kind"];
  status: (typeof pendingActions.$inferSelect)["status"];
  reason: string;
  message: MessageView | null;
  connectionId: string | null;
  action: unknown;
  result: unknown;
  createdAt: string;
  decidedAt: string | null;
}

export function pendingActionView(row: typeof pendingActions.$inferSelect, message: MessageView | null): PendingActionView {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    reason: row.reason,
    message,
    connectionId: row.connectionId,
    action: row.actionJson ? JSON.parse(row.actionJson) : null,
    result: row.resultJson ? JSON.parse(row.resultJson) : null,
    createdAt: iso(row.createdAt)!,
    decidedAt: iso(row.decidedAt),
  };
}
