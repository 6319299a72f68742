import type { Db, Tx } from "../../db/client.ts";
import type { connections } from "../../db/schema/index.ts";
import { conflict } from "../internal/errors.ts";
import { findPeerCard } from "../peers/find-peer-card.ts";

type ConnectionRow = typeof connections.$inferSelect;

/** The synchronous half: throws the owner-readable conflict when no card is known for the peer. */
export function requireReplyRoute(db: Db | Tx, connection: Pick<ConnectionRow, "principal" | "agentId">): void {
  const known = connection.principal ? findPeerCard(db, connection.principal) : null;
  if (known?.cardUrl || known?.cardJson) return;
  throw conflict(
    `${connection.agentId ?? "this agent"} sent no Agent Card this node can reply to (none, or one its key did not sign): ` +
      "answer with cardUrl, the URL of its Agent Card that you trust (POST /api/svc/inbox/:id/respond or PATCH /api/svc/connections/:id), " +
      "or block it (PATCH status blocked) to drop the request without an answer",
  );
}
