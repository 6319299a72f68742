import type { Tx } from "../../db/client.ts";
import { outbox } from "../../db/schema/index.ts";
import type { Ids } from "../context.ts";

export function queueDelivery(tx: Tx, ids: Ids, messageId: string, peerPrincipal: string, at: number): void {
  tx.insert(outbox).values({ id: `out_${ids.next()}`, messageId, peerPrincipal, status: "queued", attempts: 0, nextAttemptAt: at, createdAt: at }).run();
}
