import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { peerCards } from "../../db/schema/index.ts";
import { type PeerCardRow } from "./peer-cards.ts";

export function findPeerCard(db: Db | Tx, principal: string): PeerCardRow | null {
  return db.select().from(peerCards).where(eq(peerCards.principal, principal)).get() ?? null;
}
